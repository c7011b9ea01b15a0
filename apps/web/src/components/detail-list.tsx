import type { ReactNode } from "react";

/**
 * Labelled values as a description list laid out by the caller's grid classes: each label and value are two
 * cells of the grid (their `contents` wrapper keeps a pair together without boxing it).
 */
export function DetailList(props: { rows: [label: string, value: ReactNode][]; className: string; labelClassName: string; valueClassName: string; testId?: string }) {
  return (
    <dl className={props.className} data-testid={props.testId}>
      {props.rows.map(([label, value]) => (
        <div key={label} className="contents">
          <dt className={props.labelClassName}>{label}</dt>
          <dd className={props.valueClassName}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
