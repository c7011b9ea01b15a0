import { describe, expect, test } from "bun:test";
import { renderToStaticMarkup } from "react-dom/server";
import { CheckboxChips } from "./checkbox-chips";
import { ModelCheckboxes } from "./model-checkboxes";

const ignore = () => {};

describe("CheckboxChips", () => {
  test("a box per option, labelled, valued and named for the form, the selected ones ticked", () => {
    const html = renderToStaticMarkup(<CheckboxChips name="teams" options={[[1, "Platform"], [2, "Research"]]} selected={[2]} onToggle={ignore} />);
    expect(html).toContain('<input type="checkbox" name="teams" value="1"/>Platform</label>');
    expect(html).toContain('<input type="checkbox" name="teams" checked="" value="2"/>Research</label>');
  });

  test("with nothing to choose the empty text shows in place of the boxes (the token form's models)", () => {
    const html = renderToStaticMarkup(<ModelCheckboxes models={[]} selected={[]} onToggle={ignore} />);
    expect(html).toContain("No models are listed yet.");
    expect(html).not.toContain("checkbox");
  });
});
