// Monitor labels (api-contract section 15): at most 20 `key: value` strings, and the selector that picks monitors
// by them (`key:value`, or `key` for any value), used by the monitor list, maintenance windows and status pages.

export const LABEL_KEY_PATTERN = '^[a-z0-9_./-]{1,63}$'
export const LABEL_RULES = { maxLabels: 20, maxValueLength: 255 } as const
export const LABEL_SELECTOR_PATTERN = '^[a-z0-9_./-]{1,63}(:[^\\u0000]{0,255})?$'

/** What a selector asks: these values exactly, and these keys with any value. */
export interface LabelSelector { values: Record<string, string>, keys: string[] }

/** `['env:prod', 'team']` as the labels every picked monitor has: `env` = `prod`, and some `team`. */
export function parseLabelSelector (items: readonly string[]): LabelSelector {
  const selector: LabelSelector = { values: {}, keys: [] }
  for (const item of items) {
    const colon = item.indexOf(':')
    if (colon === -1) selector.keys.push(item)
    else selector.values[item.slice(0, colon)] = item.slice(colon + 1)
  }
  return selector
}

/** Whether `labels` has every item of the selector (`key:value` exactly, `key` with any value). */
export function labelsMatch (labels: Readonly<Record<string, string>>, items: readonly string[]): boolean {
  const { values, keys } = parseLabelSelector(items)
  return keys.every((key) => key in labels) && Object.entries(values).every(([key, value]) => labels[key] === value)
}
