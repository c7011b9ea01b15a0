/** The models offered to a model restriction, one checkbox each (the token form and a user's limits). */
export function ModelCheckboxes(props: { models: string[]; selected: string[]; onToggle: (model: string) => void }) {
  return (
    <div className="flex max-h-36 flex-wrap gap-2 overflow-y-auto rounded-md border border-slate-200 p-2">
      {props.models.length === 0 ? <span className="text-xs text-slate-500">No models are listed yet.</span> : null}
      {props.models.map((model) => (
        <label key={model} className="flex items-center gap-1.5 rounded border border-slate-200 px-2 py-0.5 text-xs">
          <input type="checkbox" name="allowedModels" value={model} checked={props.selected.includes(model)} onChange={() => props.onToggle(model)} />
          {model}
        </label>
      ))}
    </div>
  );
}
