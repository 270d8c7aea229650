import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from './stand-in-opensearch';

/**
 * A stand-in for CloudFormation on loopback, speaking the AWS query protocol its SDK v3 client
 * uses (a form-encoded POST, an XML answer in the 2010-05-15 namespace), so the SDK's own
 * serializer and XML parser run: DescribeStacks by name over the stacks a test sets, and the
 * ValidationError CloudFormation answers for a stack that does not exist.
 */
export interface StandInStack {
  StackName: string;
  StackStatus: string;
  StackStatusReason?: string;
  CreationTime: Date;
  LastUpdatedTime?: Date;
  Outputs: Record<string, string>;
}

export interface StandInCloudFormation {
  endpoint: string;
  stacks: Map<string, StandInStack>;
  requests: URLSearchParams[];
  close(): Promise<void>;
}

const NAMESPACE = 'http://cloudformation.amazonaws.com/doc/2010-05-15/';

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

function stackXml(stack: StandInStack): string {
  const element = (name: string, value: string | undefined) => (value === undefined ? '' : `<${name}>${xml(value)}</${name}>`);
  return [
    '<member>',
    element('StackId', `arn:aws:cloudformation:us-east-1:123456789012:stack/${stack.StackName}/0f0e0d0c-0000-4000-8000-000000000000`),
    element('StackName', stack.StackName),
    element('StackStatus', stack.StackStatus),
    element('StackStatusReason', stack.StackStatusReason),
    element('CreationTime', stack.CreationTime.toISOString()),
    element('LastUpdatedTime', stack.LastUpdatedTime?.toISOString()),
    '<Outputs>',
    ...Object.entries(stack.Outputs).map(([key, value]) => `<member>${element('OutputKey', key)}${element('OutputValue', value)}</member>`),
    '</Outputs>',
    '</member>',
  ].join('');
}

export async function startStandInCloudFormation(): Promise<StandInCloudFormation> {
  const stacks = new Map<string, StandInStack>();
  const requests: URLSearchParams[] = [];
  const server: Server = createServer(async (request, response) => {
    const params = new URLSearchParams(await readBody(request));
    requests.push(params);
    const reply = (status: number, body: string) => {
      response.writeHead(status, { 'content-type': 'text/xml' });
      response.end(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`);
    };
    const fail = (code: string, message: string) =>
      reply(
        400,
        `<ErrorResponse xmlns="${NAMESPACE}"><Error><Type>Sender</Type><Code>${code}</Code><Message>${xml(message)}</Message></Error><RequestId>stand-in</RequestId></ErrorResponse>`,
      );
    if (params.get('Action') !== 'DescribeStacks' || params.get('Version') !== '2010-05-15')
      return fail('InvalidAction', `the stand-in does not answer ${params.get('Action')}`);
    const name = params.get('StackName') ?? '';
    const stack = stacks.get(name);
    if (!stack) return fail('ValidationError', `Stack with id ${name} does not exist`);
    reply(
      200,
      `<DescribeStacksResponse xmlns="${NAMESPACE}"><DescribeStacksResult><Stacks>${stackXml(stack)}</Stacks></DescribeStacksResult><ResponseMetadata><RequestId>stand-in</RequestId></ResponseMetadata></DescribeStacksResponse>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stacks,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
