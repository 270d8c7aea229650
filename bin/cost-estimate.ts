#!/usr/bin/env node
/**
 * The cost estimate of docs/deploy.md, from the stages' synthesized templates:
 *
 *   npm run cost                 print the estimate of dev and prod
 *   npm run cost -- --write      rewrite the block in docs/deploy.md
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { costSection, withCostSection } from '../lib/cost/stage-cost-report';
import { PROJECT_ROOT } from '../lib/project-root';

const program = new Command('cost')
  .description('Estimate what each stage costs idle and per million calls, from its synthesized templates')
  .option('--write', 'rewrite the estimate block of docs/deploy.md')
  .action((options: { write?: boolean }) => {
    const section = costSection();
    if (!options.write) {
      console.log(section);
      return;
    }
    const path = join(PROJECT_ROOT, 'docs', 'deploy.md');
    writeFileSync(path, withCostSection(readFileSync(path, 'utf8'), section));
    console.log(`wrote the cost estimate into ${path}`);
  });

program.parse();
