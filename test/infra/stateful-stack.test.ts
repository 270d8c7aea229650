import { Match } from 'aws-cdk-lib/assertions';
import { EngineVersion } from 'aws-cdk-lib/aws-opensearchservice';
import { describe, expect, it } from 'vitest';
import { FUNDER_INDEX } from '../../lambdas/adapters/aws/records-table';
import { STACK_OUTPUTS } from '../../lib/stack-names';
import { resourcesOfType, synthStage } from './synth-stacks';

describe('stateful stack', () => {
  const dev = synthStage('dev');
  const prod = synthStage('prod');

  it('is named Gcf-<stage>-Stateful', () => {
    expect(dev.stacks.stateful.stackName).toBe('Gcf-dev-Stateful');
    expect(prod.stacks.stateful.stackName).toBe('Gcf-prod-Stateful');
  });

  it('pins the logical IDs of the table and the search domain', () => {
    for (const { stateful } of [dev, prod]) {
      expect(Object.keys(resourcesOfType(stateful, 'AWS::DynamoDB::Table'))).toEqual(['RecordsTable']);
      expect(Object.keys(resourcesOfType(stateful, 'AWS::OpenSearchService::Domain'))).toEqual(['SearchDomain']);
    }
  });

  it('defines the records table: pk/sk strings, on demand, PITR, both-image stream, TTL, AWS-managed key', () => {
    dev.stateful.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: Match.arrayWith([
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ]),
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      TimeToLiveSpecification: { AttributeName: 'expires_at', Enabled: true },
      SSESpecification: { SSEEnabled: true },
    });
    const table = resourcesOfType(dev.stateful, 'AWS::DynamoDB::Table').RecordsTable;
    expect((table?.Properties?.SSESpecification as Record<string, unknown>).KMSMasterKeyId).toBeUndefined();
  });

  it('outputs the table name and the search endpoint the admin CLI looks up', () => {
    const outputs = dev.stateful.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs[STACK_OUTPUTS.recordsTableName]?.Value).toEqual({ Ref: 'RecordsTable' });
    expect(outputs[STACK_OUTPUTS.searchDomainEndpoint]?.Value).toEqual({ 'Fn::GetAtt': ['SearchDomain', 'DomainEndpoint'] });
  });

  it('indexes funder items in a sparse global secondary index, the one the record store scans for funders', () => {
    dev.stateful.hasResourceProperties('AWS::DynamoDB::Table', {
      AttributeDefinitions: Match.arrayWith([{ AttributeName: FUNDER_INDEX.partitionKey, AttributeType: 'S' }]),
      GlobalSecondaryIndexes: [
        {
          IndexName: FUNDER_INDEX.name,
          KeySchema: [{ AttributeName: FUNDER_INDEX.partitionKey, KeyType: 'HASH' }],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    });
  });

  it('upgrades the search domain in place when the stage raises its engine version', () => {
    const raised = synthStage('prod', { search: { engineVersion: EngineVersion.openSearch('3.1') } });
    for (const { stateful } of [dev, prod, raised]) {
      const domain = resourcesOfType(stateful, 'AWS::OpenSearchService::Domain').SearchDomain;
      expect(domain?.UpdatePolicy).toEqual({ EnableVersionUpgrade: true });
    }
    raised.stateful.hasResourceProperties('AWS::OpenSearchService::Domain', { EngineVersion: 'OpenSearch_3.1' });
  });

  it('defines an encrypted, HTTPS-only OpenSearch 2.19 domain outside any VPC', () => {
    dev.stateful.hasResourceProperties('AWS::OpenSearchService::Domain', {
      EngineVersion: 'OpenSearch_2.19',
      EncryptionAtRestOptions: { Enabled: true },
      NodeToNodeEncryptionOptions: { Enabled: true },
      DomainEndpointOptions: { EnforceHTTPS: true, TLSSecurityPolicy: 'Policy-Min-TLS-1-2-2019-07' },
      EBSOptions: { EBSEnabled: true, VolumeSize: 10, VolumeType: 'gp3' },
      ClusterConfig: Match.objectLike({ InstanceType: 't3.small.search', InstanceCount: 1, ZoneAwarenessEnabled: false }),
      VPCOptions: Match.absent(),
    });
    prod.stateful.hasResourceProperties('AWS::OpenSearchService::Domain', {
      ClusterConfig: Match.objectLike({
        InstanceType: 'r7g.large.search',
        InstanceCount: 2,
        ZoneAwarenessEnabled: true,
        ZoneAwarenessConfig: { AvailabilityZoneCount: 2 },
        MultiAZWithStandbyEnabled: false,
      }),
    });
  });

  it('retains the table and the domain in prod, and protects the table from deletion', () => {
    for (const logicalId of ['RecordsTable', 'SearchDomain']) {
      const resource = prod.stateful.toJSON().Resources[logicalId];
      expect(resource.DeletionPolicy, logicalId).toBe('Retain');
      expect(resource.UpdateReplacePolicy, logicalId).toBe('Retain');
    }
    prod.stateful.hasResourceProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: true });
    expect(prod.stacks.stateful.terminationProtection).toBe(true);
  });

  it('destroys the table and the domain with a dev stack', () => {
    for (const logicalId of ['RecordsTable', 'SearchDomain']) {
      expect(dev.stateful.toJSON().Resources[logicalId].DeletionPolicy, logicalId).toBe('Delete');
    }
    dev.stateful.hasResourceProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: false });
  });

  it('retains a dev-named stage when ephemeral is turned off', () => {
    const kept = synthStage('dev-shared', { ephemeral: false });
    expect(kept.stateful.toJSON().Resources.RecordsTable.DeletionPolicy).toBe('Retain');
  });
});
