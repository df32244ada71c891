// Where each tile of the line goes on the screen: a drawing, no rule. The opening tile
// keeps its place; the right arm grows rightwards then folds down row by row, the left
// arm leftwards then folds up, each row turning back (a snake), so that a tile once laid
// never moves while the line grows (only a new row above can push it down one row).
// `flip`: the tile is drawn with its numbers swapped, as it lies in a row running
// against the line's order, so that touching halves show the same number.

const GAP = 2;

export function lineLayout(view, areaWidth, keptWidth) {
  const unit = areaWidth < 560 ? 24 : 30;
  const slot = 2 * unit + GAP;
  const rowHeight = 2 * unit + GAP;
  const columns = Math.max(3, Math.floor((keptWidth || areaWidth) / slot));
  const centre = Math.floor((columns - 1) / 2);
  const opening = view.turns.filter((t) => t.type === "play" && t.end === "left").length;
  const cells = view.line.map((tile, index) => place(index - opening, columns, centre));
  const reach = cells.reduce((r, c) => Math.max(r, Math.abs(c.row)), 1);
  const items = cells.map((c, index) => {
    const double = view.line[index].a === view.line[index].b;
    const x = c.col * slot + (double ? unit / 2 : 0);
    const y = (c.row + reach) * rowHeight + (double ? 0 : unit / 2);
    return { x, y, flip: c.flip };
  });
  return { items, width: columns * slot, height: (2 * reach + 1) * rowHeight, unit };
}

function place(k, columns, centre) {
  if (k === 0) return { row: 0, col: centre, flip: false };
  if (k > 0) {
    const p = k - 1;
    const first = columns - 1 - centre;
    if (p < first) return { row: 0, col: centre + 1 + p, flip: false };
    const q = p - first;
    const row = 1 + Math.floor(q / columns);
    const j = q % columns;
    return row % 2 ? { row, col: columns - 1 - j, flip: true } : { row, col: j, flip: false };
  }
  const p = -k - 1;
  if (p < centre) return { row: 0, col: centre - 1 - p, flip: false };
  const q = p - centre;
  const row = 1 + Math.floor(q / columns);
  const j = q % columns;
  return row % 2 ? { row: -row, col: j, flip: true } : { row: -row, col: columns - 1 - j, flip: false };
}
