import { describe, expect, test } from "bun:test";
import { renderToStaticMarkup } from "react-dom/server";
import type { ResourceList } from "../lib/use-resource-list";
import { ConfirmDelete, NamedRecordTable, ResourceTable } from "./resource-table";

interface Row {
  id: number;
  name: string;
  status: string;
  cost: number;
}

const rows: Row[] = [
  { id: 1, name: "first", status: "enabled", cost: 5 },
  { id: 2, name: "second", status: "disabled", cost: 7 },
];

function list(overrides: Partial<ResourceList<Row>> = {}): ResourceList<Row> {
  return {
    rows,
    data: undefined,
    isPending: false,
    error: null,
    actionError: null,
    refresh: async () => {},
    toggleStatus: () => {},
    isTogglingStatus: false,
    deleting: null,
    askDelete: () => {},
    cancelDelete: () => {},
    confirmDelete: () => {},
    isDeleting: false,
    deleteError: null,
    ...overrides,
  };
}

function table(source: Partial<ResourceList<Row>>, admin = true): string {
  return renderToStaticMarkup(
    <ResourceTable
      source={list(source)}
      testId="things-table"
      rowKey={(row) => row.id}
      rowAttributes={(row) => ({ "data-thing-name": row.name })}
      empty="No things yet."
      columns={[
        { header: "Name", className: "font-medium", cell: (row) => row.name },
        admin && { header: "Owner", cell: () => "root" },
        { header: "Cost", numeric: true, title: (row) => `cost of ${row.name}`, cell: (row) => row.cost },
      ]}
      actions={(row) => <button type="button">Edit {row.name}</button>}
      replaceRow={(row) => (row.id === 2 ? <tr data-editing="second" /> : null)}
    />,
  );
}

describe("ResourceTable", () => {
  test("renders a header and a row per record, with the row's data attributes, numeric alignment and actions", () => {
    const html = table({});
    expect(html).toContain('<table class="table" data-testid="things-table">');
    expect(html).toContain('<th>Name</th><th>Owner</th><th class="text-right">Cost</th><th class="sticky right-0 bg-white');
    expect(html).toContain('<tr data-thing-name="first"><td class="font-medium">first</td><td>root</td><td class="text-right tabular-nums" title="cost of first">5</td>');
    expect(html).toMatch(/<td class="sticky right-0 bg-white[^"]*"><div class="flex justify-end gap-1"><button type="button">Edit first<\/button><\/div>/);
  });

  test("a row edited in place replaces the record's row", () => {
    const html = table({});
    expect(html).toContain('<tr data-editing="second"></tr>');
    expect(html).not.toContain('data-thing-name="second"');
  });

  test("a column given as false is left out, header and cells", () => {
    const html = table({}, false);
    expect(html).not.toContain("Owner");
    expect(html).not.toContain("root");
  });

  test("an empty list says so across every column, the actions' included", () => {
    expect(table({ rows: [] })).toContain('<td colSpan="4" class="py-8 text-center text-sm text-slate-500">No things yet.</td>');
  });

  test("while loading nothing says the list is empty; a failed load and a failed row action are shown above the table", () => {
    const loading = table({ rows: undefined, isPending: true });
    expect(loading).toContain("Loading…");
    expect(loading).not.toContain("No things yet.");
    const failed = table({ rows: undefined, error: new Error("the server is away"), actionError: { message: "You cannot disable yourself" } });
    expect(failed).toContain("the server is away");
    expect(failed).toContain('<p class="mb-2 text-sm text-red-600">You cannot disable yourself</p>');
  });
});

describe("NamedRecordTable", () => {
  test("names the table and each row after the noun, and puts the name first in bold with its details below", () => {
    const html = renderToStaticMarkup(
      <NamedRecordTable
        noun="thing"
        source={list()}
        empty="No things yet."
        nameDetails={(row) => <div className="text-xs">costs {row.cost}</div>}
        columns={[{ header: "Status", cell: (row) => row.status }]}
      />,
    );
    expect(html).toContain('<table class="table" data-testid="things-table">');
    expect(html).toContain("<th>Name</th><th>Status</th>");
    expect(html).toContain('<tr data-thing-name="first"><td class="font-medium text-slate-900">first<div class="text-xs">costs 5</div></td><td>enabled</td></tr>');
    expect(html).toContain('<tr data-thing-name="second">');
  });
});

describe("ConfirmDelete", () => {
  const render = (overrides: Partial<ResourceList<Row>>) =>
    renderToStaticMarkup(<ConfirmDelete list={list(overrides)} noun="thing" afterName={(row) => ` (it costs ${row.cost})? This cannot be undone.`} />);

  test("asks only while a deletion waits for confirmation, titled and confirmed with the noun, naming the record", () => {
    expect(render({})).toBe("");
    const html = render({ deleting: rows[0]! });
    expect(html).toContain('role="dialog"');
    expect(html).toContain("Delete thing</h2>");
    expect(html).toContain("Delete <strong>first</strong> (it costs 5)? This cannot be undone.");
    expect(html).toMatch(/<button[^>]*>Delete thing<\/button>/);
  });

  test("says why the server refused the deletion", () => {
    expect(render({ deleting: rows[0]!, deleteError: { message: "User not found" } })).toContain("User not found");
  });
});
