import { describe, expect, it } from 'vitest';
import { checkApiLoggingRole, MISSING_ROLE_MESSAGE, PHYSICAL_RESOURCE_ID } from '../../lambdas/handlers/check-api-logging-role';
import { resourcesOfType, synthStage } from './synth-stacks';

/**
 * API Gateway refuses a stage with logging on an account without its CloudWatch Logs role. A
 * stage that does not own the role checks for it first, before the stage, and fails with what to
 * do; a stage that owns it (`apiCloudWatchRole`) creates it instead.
 */
describe('the API logging role prerequisite', () => {
  it('fails Create and Update with the remedy when the account has no role, passes with one, and does nothing on Delete', async () => {
    await expect(checkApiLoggingRole({ RequestType: 'Create' }, async () => undefined)).rejects.toThrow(MISSING_ROLE_MESSAGE);
    await expect(checkApiLoggingRole({ RequestType: 'Update', PhysicalResourceId: PHYSICAL_RESOURCE_ID }, async () => '')).rejects.toThrow(
      '-c apiCloudWatchRole=true',
    );
    const roleArn = 'arn:aws:iam::123456789012:role/api-gateway-logs';
    await expect(checkApiLoggingRole({ RequestType: 'Create' }, async () => roleArn)).resolves.toEqual({
      PhysicalResourceId: PHYSICAL_RESOURCE_ID,
      Data: { RoleArn: roleArn },
    });
    let asked = false;
    await expect(
      checkApiLoggingRole({ RequestType: 'Delete', PhysicalResourceId: PHYSICAL_RESOURCE_ID }, async () => {
        asked = true;
        return undefined;
      }),
    ).resolves.toEqual({ PhysicalResourceId: PHYSICAL_RESOURCE_ID });
    expect(asked).toBe(false);
  });

  it('checks before the stage on a stage that does not own the role, with read access to the API Gateway settings only', () => {
    const { stateless } = synthStage('dev');
    const checks = Object.keys(resourcesOfType(stateless, 'Custom::ApiLoggingRole'));
    expect(checks).toHaveLength(1);
    const stages = Object.values(resourcesOfType(stateless, 'AWS::ApiGateway::Stage'));
    expect(stages).toHaveLength(1);
    expect(stages[0]!.DependsOn).toEqual(expect.arrayContaining([checks[0]]));
    expect(Object.keys(resourcesOfType(stateless, 'AWS::ApiGateway::Account'))).toEqual([]);
    const policies = JSON.stringify(Object.values(resourcesOfType(stateless, 'AWS::IAM::Policy')));
    expect(policies).toMatch(
      /"Action":"apigateway:GET","Effect":"Allow","Resource":\{"Fn::Join":\["",\["arn:",\{"Ref":"AWS::Partition"\},":apigateway:",\{"Ref":"AWS::Region"\},"::\/account"\]\]\}/,
    );
  });

  it('creates the role instead, and no check, on a stage that owns it', () => {
    const { stateless } = synthStage('dev', { api: { manageAccountCloudWatchRole: true } });
    expect(Object.keys(resourcesOfType(stateless, 'Custom::ApiLoggingRole'))).toEqual([]);
    const accounts = Object.values(resourcesOfType(stateless, 'AWS::ApiGateway::Account'));
    expect(accounts).toHaveLength(1);
    expect(accounts[0]!.DeletionPolicy).toBe('Retain');
  });
});
