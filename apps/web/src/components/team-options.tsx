/** One `<option>` per team, valued by its id (a team picker's choices). */
export function TeamOptions(props: { teams: readonly { id: number; name: string }[] | undefined }) {
  return (
    <>
      {(props.teams ?? []).map((team) => (
        <option key={team.id} value={team.id}>
          {team.name}
        </option>
      ))}
    </>
  );
}
