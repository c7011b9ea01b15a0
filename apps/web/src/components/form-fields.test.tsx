import { describe, expect, test } from "bun:test";
import { renderToStaticMarkup } from "react-dom/server";
import { DetailList } from "./detail-list";
import { SelectField, WaivableField } from "./form-fields";

const ignore = () => {};

describe("WaivableField", () => {
  const render = (checked: boolean, errors?: Record<string, string[]>) =>
    renderToStaticMarkup(
      <WaivableField
        label="Quota (USD)"
        name="quotaLimit"
        errors={errors}
        waiver={{ name: "unlimitedQuota", label: "Unlimited", checked, onChange: ignore }}
        input={{ inputMode: "decimal" }}
        value="10"
        onChange={ignore}
      />,
    );

  test("while the box is clear the value's input shows, named for the server's field errors", () => {
    const html = render(false);
    expect(html).toContain('<input type="checkbox" name="unlimitedQuota"/>Unlimited</label>');
    expect(html).toMatch(/<input id="[^"]+"[^>]* inputMode="decimal"[^>]* name="quotaLimit" value="10"\/>/);
  });

  test("a ticked box waives the value: no input, and the label's own control is the box", () => {
    const html = render(true);
    expect(html).toContain('<input type="checkbox" name="unlimitedQuota" checked=""/>');
    expect(html).not.toContain('name="quotaLimit"');
  });

  test("the server's message for the field replaces the hint and marks the input invalid", () => {
    const html = render(false, { quotaLimit: ["Must be a positive amount"] });
    expect(html).toContain('aria-invalid="true"');
    expect(html).toContain('class="input input-invalid"');
    expect(html).toContain("Must be a positive amount</p>");
  });
});

describe("SelectField", () => {
  test("offers each [value, label] option with the current one selected, under the field's name", () => {
    const html = renderToStaticMarkup(
      <SelectField label="Structured output" name="structuredOutput" value="tool" onChange={ignore} options={[["", "Default"], ["tool", "Forced tool"]]} hint="How json_schema is carried." />,
    );
    expect(html).toMatch(/<select id="[^"]+" aria-describedby="[^"]+" name="structuredOutput" class="input">/);
    expect(html).toContain('<option value="">Default</option><option value="tool" selected="">Forced tool</option>');
    expect(html).toContain("How json_schema is carried.</p>");
  });
});

describe("DetailList", () => {
  test("pairs each label with its value as the grid's cells", () => {
    const html = renderToStaticMarkup(<DetailList rows={[["Model", "gpt-4o"], ["Cost", "$0.01"]]} className="grid" labelClassName="l" valueClassName="v" testId="details" />);
    expect(html).toBe('<dl class="grid" data-testid="details"><div class="contents"><dt class="l">Model</dt><dd class="v">gpt-4o</dd></div><div class="contents"><dt class="l">Cost</dt><dd class="v">$0.01</dd></div></dl>');
  });
});
