/** Slots as a bar: used (of them, borrowed) and reserved-but-idle, out of the total. */
export function CapacityBar({
  label,
  slots,
  reserved,
  used,
  borrowed,
}: {
  label: string;
  slots: number;
  reserved: number;
  used: number;
  borrowed: number;
}) {
  const total = Math.max(slots, used, reserved, 1);
  const percent = (count: number) => `${(Math.max(count, 0) / total) * 100}%`;
  const own = Math.max(used - borrowed, 0);
  const idleReserved = Math.max(reserved - own, 0);
  const text = `${label}: ${used} of ${slots} slot(s) used (${borrowed} borrowed), ${reserved} reserved`;
  return (
    <div
      className="capacity"
      role="meter"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={slots}
      aria-valuenow={used}
      aria-valuetext={text}
      title={text}
    >
      <span className="capacity-used" style={{ width: percent(own) }} />
      <span className="capacity-borrowed" style={{ width: percent(borrowed) }} />
      <span className="capacity-reserved" style={{ width: percent(idleReserved) }} />
    </div>
  );
}
