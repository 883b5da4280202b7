/**
 * Issue 14's figures to reach. "Before" shares are the issue's own same-run measurements (share of
 * a bare h3 endpoint's throughput), so "3× today's throughput" is judged as 3× that share.
 */
export const targets = {
  createCpuOverBatchedFloor: 2,
  createShareBefore: 0.035,
  healthShare: 0.4,
  meteringOverhead: 0.05,
  listShareBefore: 0.036,
  listP99Ms: 10,
  bulkSeconds: 1.5,
  bulkSecondsPostgres: 5,
  probeP99Ms: 20,
  deliveriesPerSecond: 2_000,
};
