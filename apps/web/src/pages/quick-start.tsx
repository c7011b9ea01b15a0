import { QuickStartPanel } from "../components/quick-start-panel";
import { PageHeader } from "../components/ui";

export function QuickStartPage() {
  return (
    <div className="max-w-5xl">
      <PageHeader title="Quick start" description="Call any listed model through one address and one key." />
      <QuickStartPanel />
    </div>
  );
}
