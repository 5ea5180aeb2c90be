// Defaults of the optional monitor fields: shared by the table definition and the API schema.
export const MONITOR_DEFAULTS = {
  monitor_type: 'site',
  method: 'GET',
  expected_status: 200,
  interval_minutes: 5,
  is_active: true,
  timeout_seconds: 10,
  failure_threshold: 2,
  recovery_threshold: 1,
} as const
