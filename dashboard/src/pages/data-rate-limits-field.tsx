/**
 * The settings page's field for `data_rate_limits` (null, or reads and writes per minute and
 * whom they count against): a checkbox that turns the limits on or off, two numbers (empty:
 * no limit of that kind) and a choice of address or caller. The generic fields would show a
 * null as an empty text box and `per` as a number.
 */
import type { JSX } from 'preact';

/** The setting as the server reports it. */
export interface DataRateLimits {
  reads_per_minute: number | null;
  writes_per_minute: number | null;
  per: 'address' | 'caller';
}

/** What turning the limits on starts from: the contract's example. */
const STARTING_LIMITS: DataRateLimits = { reads_per_minute: 600, writes_per_minute: 120, per: 'address' };

/** The field; `onChange` receives the whole new value (null when turned off). */
export function DataRateLimitsField({
  label,
  value,
  onChange,
}: {
  label: JSX.Element;
  value: DataRateLimits | null;
  onChange: (value: DataRateLimits | null) => void;
}) {
  const limit = (key: 'reads_per_minute' | 'writes_per_minute', text: string) => (
    <label title={`data_rate_limits.${key}`}>
      <span class="small">{text}</span>
      <input
        name={`setting-data_rate_limits-${key}`}
        type="number"
        min={1}
        placeholder="no limit"
        value={value?.[key] === null || value === null ? '' : String(value[key])}
        onInput={(e) => {
          const typed = (e.currentTarget as HTMLInputElement).value;
          if (value) onChange({ ...value, [key]: typed === '' ? null : Number(typed) });
        }}
      />
    </label>
  );
  return (
    <fieldset data-testid="setting-data_rate_limits">
      <legend>{label}</legend>
      <label class="check">
        <input
          type="checkbox"
          name="setting-data_rate_limits-on"
          checked={value !== null}
          onChange={(e) => onChange((e.currentTarget as HTMLInputElement).checked ? STARTING_LIMITS : null)}
        />
        Limit the data API
      </label>
      {value && (
        <div class="inline-fields">
          {limit('reads_per_minute', 'Reads per minute')}
          {limit('writes_per_minute', 'Writes per minute')}
          <label title="data_rate_limits.per">
            <span class="small">Counted per</span>
            <select
              name="setting-data_rate_limits-per"
              value={value.per}
              onChange={(e) =>
                onChange({ ...value, per: (e.currentTarget as HTMLSelectElement).value as DataRateLimits['per'] })
              }
            >
              <option value="address">client address</option>
              <option value="caller">caller (user, else key, else address)</option>
            </select>
          </label>
        </div>
      )}
    </fieldset>
  );
}
