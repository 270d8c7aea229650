import { describe, expect, it } from 'vitest';
import { API_ROUTES } from '../../lib/api-routes';
import { type CfnResource, resourcesOfType, statefulOutputReference, synthStage } from './synth-stacks';

/**
 * Deep paging's signing key: a Secrets Manager secret of its own in the stateful stack, generated
 * at deploy time, its ARN in CURSOR_KEY_SECRET_ARN on the three list functions, and read access
 * for them and no other function.
 */

const LIST_ENTRIES = ['lambdas/handlers/list-grants.ts', 'lambdas/handlers/list-contracts.ts', 'lambdas/handlers/list-funders.ts'];
const ENTRY_IN_DESCRIPTION = /\((lambdas\/handlers\/[a-z-]+\.ts)\)$/;

function roleStatements(policies: Record<string, CfnResource>, role: string): Record<string, unknown>[] {
  return Object.values(policies)
    .filter((policy) => JSON.stringify(policy.Properties?.Roles ?? []).includes(`"${role}"`))
    .flatMap((policy) => (policy.Properties?.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement);
}

describe('the cursor key secret', () => {
  const dev = synthStage('dev');
  const prod = synthStage('prod');

  it('is one generated secret in the stateful stack (64 letters and digits), retained where the stage keeps its data', () => {
    for (const { stateful } of [dev, prod]) {
      const secrets = Object.entries(resourcesOfType(stateful, 'AWS::SecretsManager::Secret'));
      expect(secrets).toHaveLength(1);
      const [logicalId, secret] = secrets[0]!;
      expect(logicalId).toMatch(/^CursorKeySecret/);
      expect(secret.Properties?.GenerateSecretString).toEqual({ PasswordLength: 64, ExcludePunctuation: true, IncludeSpace: false });
      expect(secret.Properties?.SecretString).toBeUndefined();
    }
    expect(Object.values(resourcesOfType(prod.stateful, 'AWS::SecretsManager::Secret'))[0]!.DeletionPolicy).toBe('Retain');
    expect(Object.values(resourcesOfType(dev.stateful, 'AWS::SecretsManager::Secret'))[0]!.DeletionPolicy).toBe('Delete');
  });

  it('is named to the list functions by CURSOR_KEY_SECRET_ARN, and only to them', () => {
    const lambdas = Object.values(resourcesOfType(dev.stateless, 'AWS::Lambda::Function'));
    const withKey = lambdas
      .filter((fn) => (fn.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables?.CURSOR_KEY_SECRET_ARN !== undefined)
      .map((fn) => ENTRY_IN_DESCRIPTION.exec(String(fn.Properties?.Description))?.[1]);
    expect(withKey.sort()).toEqual([...LIST_ENTRIES].sort());
    expect(
      API_ROUTES.filter((route) => route.bindings.includes('cursors'))
        .map((route) => route.entry)
        .sort(),
    ).toEqual([...LIST_ENTRIES].sort());
    for (const fn of lambdas.filter((f) => LIST_ENTRIES.includes(ENTRY_IN_DESCRIPTION.exec(String(f.Properties?.Description))?.[1] ?? ''))) {
      const arn = (fn.Properties!.Environment as { Variables: Record<string, unknown> }).Variables.CURSOR_KEY_SECRET_ARN;
      expect(arn).toEqual(statefulOutputReference(/CursorKeySecret/));
    }
  });

  it("may be read (GetSecretValue) by the list functions' roles alone, on that secret alone", () => {
    const lambdas = resourcesOfType(dev.stateless, 'AWS::Lambda::Function');
    const policies = resourcesOfType(dev.stateless, 'AWS::IAM::Policy');
    for (const fn of Object.values(lambdas)) {
      const entry = ENTRY_IN_DESCRIPTION.exec(String(fn.Properties?.Description))?.[1];
      const role = (fn.Properties?.Role as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt']?.[0];
      if (!role) continue;
      const secretStatements = roleStatements(policies, role).filter((s) => [s.Action].flat().some((action) => String(action).startsWith('secretsmanager:')));
      if (entry && LIST_ENTRIES.includes(entry)) {
        expect(secretStatements, entry).toHaveLength(1);
        expect([secretStatements[0]!.Action].flat().sort(), entry).toEqual(['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue']);
        expect(secretStatements[0]!.Resource, entry).toEqual(statefulOutputReference(/CursorKeySecret/));
      } else {
        expect(secretStatements, entry ?? String(fn.Properties?.Description)).toEqual([]);
      }
    }
  });
});
