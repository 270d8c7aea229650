import { createReadStream } from 'node:fs';
import { SaxesParser } from 'saxes';
import type { SourceItem } from '../../core/use-cases/ingest-records';

/**
 * XML extracts (Grants.gov `<Grants>` with FundingOppSynopsis or OpportunitySynopsisDetail_1_0
 * records), read as a stream so a full extract need not fit in memory. Each child of the root is
 * a record: its child elements become fields (text; a repeated element becomes a list; nested
 * elements become objects) and `_record_type` is the element name. A malformed document rejects
 * the rest of the file, with the line the fault is on; records before it stand.
 */

type Field = string | Field[] | { [name: string]: Field };
interface OpenElement {
  name: string;
  text: string;
  fields: Record<string, Field>;
  hasChildren: boolean;
  line: number;
}

function addField(fields: Record<string, Field>, name: string, value: Field): void {
  const existing = fields[name];
  if (existing === undefined) fields[name] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else fields[name] = [existing, value];
}

export async function* xmlRecords(path: string, label: string, onBytes: (bytes: number) => void): AsyncIterable<SourceItem> {
  const parser = new SaxesParser({ position: true });
  const ready: SourceItem[] = [];
  const stack: OpenElement[] = [];

  parser.on('opentag', (tag) => {
    const parent = stack.at(-1);
    if (parent) parent.hasChildren = true;
    stack.push({ name: tag.name.replace(/^.*:/, ''), text: '', fields: {}, hasChildren: false, line: parser.line });
  });
  const onText = (text: string) => {
    const current = stack.at(-1);
    if (current) current.text += text;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', () => {
    const element = stack.pop()!;
    const depth = stack.length;
    if (depth === 1) {
      ready.push({ location: `${label}:${element.line}`, record: { _record_type: element.name, ...element.fields } });
    } else if (depth > 1) {
      addField(stack.at(-1)!.fields, element.name, element.hasChildren ? element.fields : element.text.trim());
    }
  });

  const input = createReadStream(path, { encoding: 'utf8' });
  try {
    for await (const chunk of input as AsyncIterable<string>) {
      onBytes(Buffer.byteLength(chunk));
      parser.write(chunk);
      yield* ready.splice(0);
    }
    parser.close();
    yield* ready.splice(0);
  } catch (error) {
    yield* ready.splice(0);
    const message = (error as Error).message.replace(/^[^:]*:\d+:\d+: /, '');
    yield { location: `${label}:${parser.line}`, error: `malformed XML: ${message}; the rest of the file was not read` };
  }
}
