import { UsagePanel } from './usage-panel';

export function UsageView() {
  return <UsagePanel headingLevel={1} />;
}
