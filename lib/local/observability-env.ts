/**
 * The local runtime's defaults for the handlers' Powertools Logger and Metrics (lib/observability): warnings and
 * errors only, and no metric output, so `npm start` shows its own one line per request; `POWERTOOLS_LOG_LEVEL=INFO
 * npm start` shows the handlers' lines too. Imported before anything else, as the Logger reads its level when created.
 */
process.env.POWERTOOLS_LOG_LEVEL ||= 'WARN';
process.env.POWERTOOLS_METRICS_DISABLED ||= 'true';
