import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import type { Outputs } from "../lib/router-types";
import { useTRPC } from "../trpc";

type StepId = Outputs["quickStart"]["onboarding"]["steps"][number]["id"];

const stepText: Record<StepId, { title: string; detail: string; to: string; action: string }> = {
  "add-channel": { title: "Add a channel", detail: "An upstream (OpenAI, Anthropic, DeepSeek, Ollama…) with its key and models.", to: "/channels", action: "Channels" },
  "test-channel": { title: "Test it", detail: "Test sends one small request through the channel and shows the answer's latency.", to: "/channels", action: "Channels" },
  "set-prices": { title: "Set prices", detail: "A model without a price is billed at zero.", to: "/models", action: "Models & prices" },
  "create-access": { title: "Create a user or a token", detail: "A token is the API key a client sends; a user owns tokens and a balance.", to: "/tokens", action: "Tokens" },
  "first-call": { title: "Make a first call", detail: "Paste a snippet from the quick start; the call shows in Logs and here.", to: "/quick-start", action: "Quick start" },
};

/** The getting-started steps in the order they can be done, each ticked once the server sees it done. */
export function OnboardingChecklist() {
  const trpc = useTRPC();
  // Refetched on every visit: the steps are done on other pages.
  const status = useQuery({ ...trpc.quickStart.onboarding.queryOptions(), staleTime: 0 });
  const steps = status.data?.steps ?? [];
  if (steps.length === 0 || steps.every((step) => step.done)) return null;
  const next = steps.find((step) => !step.done)?.id;
  return (
    <section className="card p-4 sm:p-5" aria-labelledby="onboarding-title" data-testid="onboarding">
      <h2 id="onboarding-title" className="text-base font-semibold">
        Getting started
      </h2>
      <p className="mt-1 text-sm text-slate-500">
        {steps.filter((step) => step.done).length} of {steps.length} done
      </p>
      <ol className="mt-3 space-y-2">
        {steps.map((step, index) => {
          const text = stepText[step.id];
          return (
            <li key={step.id} className="flex items-start gap-3" data-step={step.id} data-done={step.done}>
              <span
                aria-hidden="true"
                className={`mt-0.5 flex h-6 w-6 shrink-0 items-center justify-center rounded-full text-xs font-semibold ${step.done ? "bg-emerald-600 text-white" : "bg-slate-100 text-slate-600"}`}
              >
                {step.done ? "✓" : index + 1}
              </span>
              <div className="min-w-0 flex-1">
                <p className={`text-sm font-medium ${step.done ? "text-slate-500 line-through" : "text-slate-900"}`}>
                  {text.title}
                  <span className="sr-only">{step.done ? " (done)" : " (to do)"}</span>
                </p>
                {step.done ? null : <p className="text-xs text-slate-500">{text.detail}</p>}
              </div>
              {step.id === next ? (
                <Link to={text.to} className="button-small shrink-0">
                  {text.action}
                </Link>
              ) : null}
            </li>
          );
        })}
      </ol>
    </section>
  );
}

/** Admins only: models that channels serve while no price is set, which are billed at zero. */
export function UnpricedModelsWarning() {
  const trpc = useTRPC();
  const status = useQuery({ ...trpc.quickStart.onboarding.queryOptions(), staleTime: 0 });
  const unpriced = status.data?.unpricedModels ?? [];
  if (unpriced.length === 0) return null;
  return (
    <div className="rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900" role="status" data-testid="unpriced-models">
      <strong>{unpriced.length === 1 ? "1 model is" : `${unpriced.length} models are`} served without a price</strong> and billed at zero:{" "}
      <span className="break-words font-mono text-xs">{unpriced.join(", ")}</span>.{" "}
      <Link to="/models" className="font-medium underline">
        Set prices
      </Link>
    </div>
  );
}
