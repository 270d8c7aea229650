import type { Template } from 'aws-cdk-lib/assertions';
import { resourcesOfType } from './synth-stacks';

/** A CloudFormation value with its intrinsic functions written as readable placeholders, e.g. `<Ref:Api>`. */
function flatten(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    if (Array.isArray(object['Fn::Join'])) {
      const [separator, parts] = object['Fn::Join'] as [string, unknown[]];
      return parts.map(flatten).join(separator);
    }
    if (typeof object.Ref === 'string') return `<Ref:${object.Ref}>`;
    if (Array.isArray(object['Fn::GetAtt'])) return `<GetAtt:${(object['Fn::GetAtt'] as string[]).join('.')}>`;
    const output = object['Fn::GetStackOutput'] as { StackName: string; OutputName: string } | undefined;
    if (output !== undefined) return `<Output:${output.StackName}.${output.OutputName}>`;
  }
  throw new Error(`Unexpected value in a dashboard body: ${JSON.stringify(value)}`);
}

export interface DashboardMetricLine {
  readonly namespace?: string;
  readonly metricName?: string;
  readonly dimensions: Record<string, string>;
  readonly options: Record<string, unknown>;
}

export interface DashboardWidget {
  readonly type: string;
  readonly x: number;
  readonly width: number;
  readonly properties: Record<string, unknown> & { title?: string; metrics?: unknown[][] };
}

/** The widgets of the stack's one dashboard, its body parsed (tokens become `<Ref:…>` placeholders). */
export function dashboardWidgets(template: Template): DashboardWidget[] {
  const dashboards = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Dashboard'));
  if (dashboards.length !== 1) throw new Error(`Expected one dashboard, found ${dashboards.length}`);
  const body = JSON.parse(flatten(dashboards[0]!.Properties?.DashboardBody)) as { widgets: DashboardWidget[] };
  return body.widgets;
}

/** A graph's lines as CDK writes them: `[namespace, name, dim, value, …, options]`, or `[{ expression, … }]`. */
export function metricLines(widget: DashboardWidget): DashboardMetricLine[] {
  return (widget.properties.metrics ?? []).map((line) => {
    const last = line[line.length - 1];
    const options = last !== null && typeof last === 'object' ? (last as Record<string, unknown>) : {};
    const fields = (options === last ? line.slice(0, -1) : line) as string[];
    if (fields.length === 0) return { dimensions: {}, options };
    const dimensions: Record<string, string> = {};
    for (let i = 2; i + 1 < fields.length; i += 2) dimensions[fields[i]!] = fields[i + 1]!;
    return { namespace: fields[0], metricName: fields[1], dimensions, options };
  });
}
