import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from './stand-in-opensearch';

/**
 * A stand-in for CloudWatch on loopback, speaking the protocol the CloudWatch client of SDK v3
 * uses (AWS JSON 1.0, `X-Amz-Target: GraniteServiceVersion20100801.<Operation>`, timestamps as
 * epoch seconds, awsQueryCompatible errors), so the SDK's own serializers and parsers run:
 * DescribeAlarms (prefix and state filters, paged `pageSize` at a time) over the alarms a test
 * sets, and GetMetricData over the series it sets, matching namespace, name and the exact
 * dimension set as CloudWatch does. `refuse` makes an operation answer AccessDenied.
 */
export interface StandInAlarm {
  AlarmName: string;
  AlarmDescription?: string;
  StateValue: 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';
  StateReason: string;
  StateTransitionedTimestamp: Date;
  AlarmActions: string[];
}

export interface StandInSeries {
  namespace: string;
  metricName: string;
  dimensions: Record<string, string>;
  points: { at: Date; value: number }[];
}

export interface StandInCloudWatch {
  endpoint: string;
  alarms: StandInAlarm[];
  series: StandInSeries[];
  /** Each request's operation and JSON body, in order. */
  requests: { operation: string; body: Record<string, any> }[];
  refused: Map<string, string>;
  pageSize: number;
  close(): Promise<void>;
}

interface MetricDataQuery {
  Id: string;
  MetricStat: { Metric: { Namespace: string; MetricName: string; Dimensions?: { Name: string; Value: string }[] }; Period: number; Stat: string };
}

const sameDimensions = (a: Record<string, string>, b: { Name: string; Value: string }[] = []) =>
  b.length === Object.keys(a).length && b.every(({ Name, Value }) => a[Name] === Value);

export async function startStandInCloudWatch(): Promise<StandInCloudWatch> {
  const state: Omit<StandInCloudWatch, 'endpoint' | 'close'> = { alarms: [], series: [], requests: [], refused: new Map(), pageSize: 2 };
  const server: Server = createServer(async (request, response) => {
    const reply = (status: number, value: unknown, errorCode?: string) => {
      response.writeHead(status, {
        'content-type': 'application/x-amz-json-1.0',
        ...(errorCode ? { 'x-amzn-query-error': `${errorCode};Sender` } : {}),
      });
      response.end(JSON.stringify(value));
    };
    const fail = (code: string, message: string) => reply(400, { __type: `com.amazonaws.cloudwatch#${code}`, message }, code);
    const [service, operation = ''] = String(request.headers['x-amz-target'] ?? '').split('.');
    const body = JSON.parse((await readBody(request)) || '{}') as Record<string, any>;
    state.requests.push({ operation, body });
    if (service !== 'GraniteServiceVersion20100801' || request.headers['content-type'] !== 'application/x-amz-json-1.0')
      return fail('InvalidAction', `not a CloudWatch JSON request: ${request.headers['x-amz-target']}`);
    const refusal = state.refused.get(operation);
    if (refusal) return fail('AccessDenied', refusal);

    if (operation === 'DescribeAlarms') {
      const matching = state.alarms.filter(
        (alarm) => alarm.AlarmName.startsWith(body.AlarmNamePrefix ?? '') && (!body.StateValue || alarm.StateValue === body.StateValue),
      );
      const start = Number(body.NextToken ?? 0);
      const page = matching.slice(start, start + state.pageSize);
      const next = start + state.pageSize < matching.length ? String(start + state.pageSize) : undefined;
      return reply(200, {
        MetricAlarms: page.map((alarm) => ({
          ...alarm,
          StateTransitionedTimestamp: alarm.StateTransitionedTimestamp.getTime() / 1000,
          StateUpdatedTimestamp: alarm.StateTransitionedTimestamp.getTime() / 1000,
        })),
        ...(next ? { NextToken: next } : {}),
      });
    }
    if (operation === 'GetMetricData') {
      const queries = body.MetricDataQueries as MetricDataQuery[];
      // CloudWatch's own rule; an id like `iterator-age` is refused.
      const badId = queries.find((query) => !/^[a-z][a-zA-Z0-9_]*$/.test(query.Id));
      if (badId)
        return fail(
          'ValidationError',
          `The value ${badId.Id} for parameter MetricDataQueries.member.Id is not matching the expected pattern ^[a-z][a-zA-Z0-9_]*$.`,
        );
      const [from, to] = [Number(body.StartTime) * 1000, Number(body.EndTime) * 1000];
      const descending = body.ScanBy === 'TimestampDescending';
      return reply(200, {
        MetricDataResults: queries.map((query) => {
          const metric = query.MetricStat.Metric;
          const points = state.series
            .filter(
              (series) =>
                series.namespace === metric.Namespace && series.metricName === metric.MetricName && sameDimensions(series.dimensions, metric.Dimensions),
            )
            .flatMap((series) => series.points)
            .filter((point) => point.at.getTime() >= from && point.at.getTime() < to)
            .sort((a, b) => (descending ? b.at.getTime() - a.at.getTime() : a.at.getTime() - b.at.getTime()));
          return {
            Id: query.Id,
            Label: metric.MetricName,
            Timestamps: points.map((point) => point.at.getTime() / 1000),
            Values: points.map((point) => point.value),
            StatusCode: 'Complete',
          };
        }),
        Messages: [],
      });
    }
    fail('InvalidAction', `the stand-in does not answer ${operation}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
