import { CheckboxChips } from "./checkbox-chips";

/** The models offered to a model restriction, one checkbox each (the token form and a user's limits). */
export function ModelCheckboxes(props: { models: string[]; selected: string[]; onToggle: (model: string) => void }) {
  return (
    <CheckboxChips name="allowedModels" options={props.models.map((model) => [model, model] as const)} selected={props.selected} onToggle={props.onToggle} empty="No models are listed yet." />
  );
}
