/**
 * Alarms, dashboard and alarm topic (infra/monitoring.ts), and what every function gets for operating it: the
 * Powertools environment, tracing on request, log retention, reserved concurrency (infra/telemetry.ts, infra/config.ts).
 */
import { DEFAULTS } from '../../infra/config.js';
import { logicalId, resourcesOfType, synth, type Synth, type TemplateJson } from './helpers.js';

const TIMEOUT = 60_000;

let base: Synth;
beforeAll(() => {
  base = synth();
}, TIMEOUT);

interface AlarmMetric {
  namespace: string;
  name: string;
  stat: string;
  dimensions: Record<string, unknown>;
}

interface Alarm {
  id: string;
  props: any;
  metrics: AlarmMetric[];
}

/** Every CloudWatch alarm of the template with the metrics it reads (plain or inside metric math). */
function alarmsOf(json: TemplateJson): Alarm[] {
  return resourcesOfType(json, 'AWS::CloudWatch::Alarm').map(([id, r]) => {
    const p = r.Properties;
    const stats = p.Metrics
      ? p.Metrics.filter((m: any) => m.MetricStat).map((m: any) => ({ ...m.MetricStat.Metric, Stat: m.MetricStat.Stat }))
      : [{ Namespace: p.Namespace, MetricName: p.MetricName, Dimensions: p.Dimensions, Stat: p.ExtendedStatistic ?? p.Statistic }];
    return {
      id,
      props: p,
      metrics: stats.map((m: any) => ({
        namespace: m.Namespace,
        name: m.MetricName,
        stat: m.Stat,
        dimensions: Object.fromEntries((m.Dimensions ?? []).map((d: any) => [d.Name, d.Value])),
      })),
    };
  });
}

/** The alarms that read `name` in `namespace` with `stat` and these dimensions. */
function alarmsOn(json: TemplateJson, namespace: string, name: string, stat: string, dimensions: Record<string, unknown>): Alarm[] {
  return alarmsOf(json).filter((a) => a.metrics.some((m) => m.namespace === namespace && m.name === name && m.stat === stat
    && Object.entries(dimensions).every(([k, v]) => JSON.stringify(m.dimensions[k]) === JSON.stringify(v))));
}

/** Each function of the stack with its logical id and its service name. */
function allFunctions(s: Synth) {
  return [
    ...Object.entries(s.stack.functions).map(([group, fn]) => ({ fn, service: group, job: false })),
    { fn: s.stack.horizon.fn, service: 'horizon', job: true },
    { fn: s.stack.changeEvents.fn, service: 'publish-changes', job: true },
    { fn: s.stack.imports.worker, service: 'import-worker', job: true },
    { fn: s.stack.imports.dispatcher, service: 'import-dispatcher', job: true },
  ].map((f) => ({ ...f, id: logicalId(s.stack, f.fn) }));
}

describe('alarms', () => {
  test('the functions listed here are all the functions of the template', () => {
    expect(allFunctions(base).map((f) => f.id).sort()).toEqual(resourcesOfType(base.json, 'AWS::Lambda::Function').map(([id]) => id).sort());
  });

  test('API: 5xx rate and 4xx spike on the stage\'s metrics ($default), thresholds from cdk.json', () => {
    const api = { ApiId: { Ref: logicalId(base.stack, base.stack.api) }, Stage: '$default' };
    const [fault, ...moreFaults] = alarmsOn(base.json, 'AWS/ApiGateway', '5xx', 'Average', api);
    expect(moreFaults).toHaveLength(0);
    expect(fault!.props).toMatchObject({ Threshold: DEFAULTS.alarmApi5xxRatePercent / 100, ComparisonOperator: 'GreaterThanThreshold' });
    const [client, ...moreClients] = alarmsOn(base.json, 'AWS/ApiGateway', '4xx', 'Average', api);
    expect(moreClients).toHaveLength(0);
    expect(client!.props.Threshold).toBe(DEFAULTS.alarmApi4xxRatePercent / 100);
    // Judged only in periods with enough requests: a few 404s on a quiet day are no spike.
    expect(JSON.stringify(client!.props.Metrics)).toMatch(/IF\(sampleCount > \d+, metric\)/);
  });

  test('a named stage is the Stage dimension', () => {
    const s = synth({ stageName: 'prod' });
    const api = { ApiId: { Ref: logicalId(s.stack, s.stack.api) }, Stage: 'prod' };
    expect(alarmsOn(s.json, 'AWS/ApiGateway', '5xx', 'Average', api)).toHaveLength(1);
    expect(alarmsOn(s.json, 'AWS/ApiGateway', '4xx', 'Average', api)).toHaveLength(1);
  }, TIMEOUT);

  test('every function: p99 duration, errors, time-outs (maximum duration at 95 % of its time limit), throttles', () => {
    for (const { fn, id, job } of allFunctions(base)) {
      const dims = { FunctionName: { Ref: id } };
      const timeoutMs = base.json.Resources[id]!.Properties.Timeout * 1000;
      const [p99, ...moreP99] = alarmsOn(base.json, 'AWS/Lambda', 'Duration', 'p99', dims);
      expect(moreP99).toHaveLength(0);
      expect(p99!.props.Threshold).toBe(job ? timeoutMs * 0.8 : DEFAULTS.alarmLatencyP99Ms);
      const [timeout, ...moreTimeouts] = alarmsOn(base.json, 'AWS/Lambda', 'Duration', 'Maximum', dims);
      expect(moreTimeouts).toHaveLength(0);
      expect(timeout!.props.Threshold).toBe(timeoutMs * 0.95);
      expect(timeout!.props.Threshold).toBeLessThan(timeoutMs);
      for (const metric of ['Errors', 'Throttles']) {
        const found = alarmsOn(base.json, 'AWS/Lambda', metric, 'Sum', dims);
        expect([fn.node.path, metric, found.length]).toEqual([fn.node.path, metric, 1]);
        expect(found[0]!.props).toMatchObject({ Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
      }
    }
  });

  test('the table\'s read and write throttle events', () => {
    const dims = { TableName: { Ref: logicalId(base.stack, base.stack.table) } };
    for (const metric of ['ReadThrottleEvents', 'WriteThrottleEvents']) {
      const found = alarmsOn(base.json, 'AWS/DynamoDB', metric, 'Sum', dims);
      expect(found).toHaveLength(1);
      expect(found[0]!.props).toMatchObject({ Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
    }
  });

  test('the dead-letter queues of the horizon job, the import worker and dispatcher, and the change publisher\'s failure queue: any visible message', () => {
    for (const queue of [base.stack.horizon.deadLetters, base.stack.changeEvents.deadLetters, base.stack.imports.deadLetters,
      base.stack.imports.dispatcherDeadLetters]) {
      const dims = { QueueName: { 'Fn::GetAtt': [logicalId(base.stack, queue), 'QueueName'] } };
      const found = alarmsOn(base.json, 'AWS/SQS', 'ApproximateNumberOfMessagesVisible', 'Maximum', dims);
      expect(found).toHaveLength(1);
      expect(found[0]!.props).toMatchObject({ Threshold: 0, ComparisonOperator: 'GreaterThanThreshold', TreatMissingData: 'notBreaching' });
    }
  });

  test('the change publisher\'s iterator age', () => {
    const dims = { FunctionName: { Ref: logicalId(base.stack, base.stack.changeEvents.fn) } };
    const found = alarmsOn(base.json, 'AWS/Lambda', 'IteratorAge', 'Maximum', dims);
    expect(found).toHaveLength(1);
    expect(found[0]!.props.Threshold).toBe(DEFAULTS.alarmIteratorAgeSeconds * 1000);
  });

  test('every alarm notifies the one topic, on ALARM and on OK, under a name of its own stack', () => {
    const alarms = alarmsOf(base.json);
    expect(alarms.length).toBeGreaterThanOrEqual(5);
    expect(resourcesOfType(base.json, 'AWS::CloudWatch::CompositeAlarm')).toHaveLength(0);
    const topic = { Ref: logicalId(base.stack, base.stack.monitoring.topic) };
    for (const { props } of alarms) {
      expect(props.ActionsEnabled).toBe(true);
      expect(props.AlarmActions).toEqual([topic]);
      expect(props.OKActions).toEqual([topic]);
      expect(props.AlarmName).toMatch(/^CalendarEventsApi-/);
    }
    expect(new Set(alarms.map((a) => a.props.AlarmName)).size).toBe(alarms.length);
    // Each notification says what happened to what, in words of its own.
    expect(new Set(alarms.map((a) => a.props.AlarmDescription)).size).toBe(alarms.length);
  });

  test('thresholds follow the context', () => {
    const s = synth({ alarmApi5xxRatePercent: '5', alarmApi4xxRatePercent: '40', alarmLatencyP99Ms: '1500', alarmIteratorAgeSeconds: '900' });
    const api = { ApiId: { Ref: logicalId(s.stack, s.stack.api) } };
    expect(alarmsOn(s.json, 'AWS/ApiGateway', '5xx', 'Average', api)[0]!.props.Threshold).toBe(0.05);
    expect(alarmsOn(s.json, 'AWS/ApiGateway', '4xx', 'Average', api)[0]!.props.Threshold).toBe(0.4);
    const events = { FunctionName: { Ref: logicalId(s.stack, s.stack.functions.events) } };
    expect(alarmsOn(s.json, 'AWS/Lambda', 'Duration', 'p99', events)[0]!.props.Threshold).toBe(1500);
    const publisher = { FunctionName: { Ref: logicalId(s.stack, s.stack.changeEvents.fn) } };
    expect(alarmsOn(s.json, 'AWS/Lambda', 'IteratorAge', 'Maximum', publisher)[0]!.props.Threshold).toBe(900_000);
  }, TIMEOUT);
});

/** A token of the dashboard body as one word, e.g. `@Ref:EventsFunction1234@`, so that the body parses as JSON. */
const placeholder = (part: any): string =>
  part.Ref ? `@Ref:${part.Ref}@` : `@GetAtt:${part['Fn::GetAtt'].join('.')}@`;

/** The metrics the dashboard's widgets plot, each as namespace, name and dimensions (tokens as placeholders). */
function dashboardMetrics(body: any): { namespace: string; name: string; dimensions: Record<string, string> }[] {
  const text = body['Fn::Join'][1].map((p: unknown) => (typeof p === 'string' ? p : placeholder(p))).join('');
  const widgets = JSON.parse(text).widgets as { properties: { metrics?: unknown[][] } }[];
  return widgets.flatMap((w) => w.properties.metrics ?? []).filter((m) => typeof m[0] === 'string').map((m) => {
    const [namespace, name, ...rest] = m.filter((x) => typeof x === 'string') as string[];
    const dimensions: Record<string, string> = {};
    for (let i = 0; i + 1 < rest.length; i += 2) dimensions[rest[i]!] = rest[i + 1]!;
    return { namespace: namespace!, name: name!, dimensions };
  });
}

describe('dashboard', () => {
  test('one dashboard, named per stack and region, plotting every metric an alarm watches', () => {
    const [[, dashboard], ...others] = resourcesOfType(base.json, 'AWS::CloudWatch::Dashboard');
    expect(others).toHaveLength(0);
    expect(dashboard!.Properties.DashboardName).toEqual({ 'Fn::Join': ['', ['CalendarEventsApi-', { Ref: 'AWS::Region' }]] });
    const plotted = new Set(dashboardMetrics(dashboard!.Properties.DashboardBody).map((m) => JSON.stringify(m)));
    const watched = alarmsOf(base.json).flatMap((a) => a.metrics).map((m) => ({
      namespace: m.namespace,
      name: m.name,
      dimensions: Object.fromEntries(Object.entries(m.dimensions).map(([k, v]) => [k, typeof v === 'string' ? v : placeholder(v)])),
    }));
    expect(watched.length).toBeGreaterThan(30);
    for (const metric of watched) expect([...plotted]).toContain(JSON.stringify(metric));
    for (const { id } of allFunctions(base)) expect([...plotted].some((m) => m.includes(`@Ref:${id}@`))).toBe(true);
  });
});

describe('alarm topic', () => {
  test('encrypted with a rotating key that CloudWatch alarms of this account may use; SSL only; its ARN is an output', () => {
    const topicId = logicalId(base.stack, base.stack.monitoring.topic);
    const topic = base.json.Resources[topicId]!;
    const keyId = topic.Properties.KmsMasterKeyId['Fn::GetAtt'][0];
    const key = base.json.Resources[keyId]!;
    expect(key.Type).toBe('AWS::KMS::Key');
    expect(key.Properties.EnableKeyRotation).toBe(true);
    const keyStatements = key.Properties.KeyPolicy.Statement;
    expect(keyStatements).toContainEqual(expect.objectContaining({ Principal: { Service: 'cloudwatch.amazonaws.com' },
      Action: ['kms:Decrypt', 'kms:GenerateDataKey*'], Condition: expect.objectContaining({ StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } }) }));
    const [[, policy]] = resourcesOfType(base.json, 'AWS::SNS::TopicPolicy');
    expect(policy!.Properties.Topics).toEqual([{ Ref: topicId }]);
    const statements = policy!.Properties.PolicyDocument.Statement;
    expect(statements).toContainEqual(expect.objectContaining({ Effect: 'Deny', Action: 'sns:Publish', Principal: '*',
      Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
    expect(statements).toContainEqual(expect.objectContaining({ Effect: 'Allow', Action: 'sns:Publish',
      Principal: { Service: 'cloudwatch.amazonaws.com' } }));
    expect(base.json.Outputs!.AlarmTopicArn!.Value).toEqual({ Ref: topicId });
  });

  test('the AlarmEmail parameter (empty by default) subscribes an address only when it is set', () => {
    const json = base.json as TemplateJson & { Parameters: Record<string, any>; Conditions: Record<string, unknown> };
    expect(json.Parameters.AlarmEmail).toMatchObject({ Type: 'String', Default: '' });
    const [[, subscription], ...others] = resourcesOfType(base.json, 'AWS::SNS::Subscription');
    expect(others).toHaveLength(0);
    expect(subscription!.Properties).toEqual({ Protocol: 'email', Endpoint: { Ref: 'AlarmEmail' },
      TopicArn: { Ref: logicalId(base.stack, base.stack.monitoring.topic) } });
    const condition = (subscription as { Condition?: string }).Condition!;
    expect(json.Conditions[condition]).toEqual({ 'Fn::Not': [{ 'Fn::Equals': [{ Ref: 'AlarmEmail' }, ''] }] });
  });
});

describe('every function', () => {
  test('Powertools environment: service name, metrics namespace, log level; Lambda\'s log filter at the same level', () => {
    for (const { id, service } of allFunctions(base)) {
      const props = base.json.Resources[id]!.Properties;
      expect(props.Environment.Variables).toMatchObject({ POWERTOOLS_SERVICE_NAME: service, POWERTOOLS_METRICS_NAMESPACE: 'CalendarEventsApi',
        POWERTOOLS_LOG_LEVEL: 'INFO', POWERTOOLS_TRACE_ENABLED: 'false' });
      expect(props.LoggingConfig.ApplicationLogLevel).toBe('INFO');
    }
    const s = synth({ logLevel: 'debug' });
    for (const { id } of allFunctions(s)) {
      const props = s.json.Resources[id]!.Properties;
      expect(props.Environment.Variables.POWERTOOLS_LOG_LEVEL).toBe('DEBUG');
      expect(props.LoggingConfig.ApplicationLogLevel).toBe('DEBUG');
    }
  }, TIMEOUT);

  test('tracing only with -c tracing=true: then active, with permission to write traces', () => {
    for (const { id } of allFunctions(base)) expect(base.json.Resources[id]!.Properties.TracingConfig).toBeUndefined();
    const xray = (json: TemplateJson) => resourcesOfType(json, 'AWS::IAM::Policy')
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement).filter((st: any) => [st.Action].flat().includes('xray:PutTraceSegments'));
    expect(xray(base.json)).toHaveLength(0);

    const s = synth({ tracing: 'true' });
    for (const { id } of allFunctions(s)) {
      const props = s.json.Resources[id]!.Properties;
      expect(props.TracingConfig).toEqual({ Mode: 'Active' });
      expect(props.Environment.Variables.POWERTOOLS_TRACE_ENABLED).toBe('true');
      const role = props.Role['Fn::GetAtt'][0];
      const writes = resourcesOfType(s.json, 'AWS::IAM::Policy')
        .filter(([, p]) => p.Properties.Roles.some((r: any) => r.Ref === role))
        .flatMap(([, p]) => p.Properties.PolicyDocument.Statement)
        .filter((st: any) => [st.Action].flat().includes('xray:PutTraceSegments'));
      expect(writes).toHaveLength(1);
    }
  }, TIMEOUT);

  test('every log group (the functions\' and the access log) keeps its logs for logRetentionDays', () => {
    const groups = resourcesOfType(base.json, 'AWS::Logs::LogGroup');
    expect(groups).toHaveLength(allFunctions(base).length + 1);
    for (const [, group] of groups) expect(group.Properties.RetentionInDays).toBe(DEFAULTS.logRetentionDays);
    const used = new Set([
      ...allFunctions(base).map(({ id }) => base.json.Resources[id]!.Properties.LoggingConfig.LogGroup.Ref),
      base.json.Resources[logicalId(base.stack, base.stack.stage)]!.Properties.AccessLogSettings.DestinationArn['Fn::GetAtt'][0],
    ]);
    expect(used).toEqual(new Set(groups.map(([id]) => id)));
  });

  test('reserved concurrency: each route group and the change publisher as configured, the horizon job one at a time', () => {
    const reserved = (s: Synth, fn: { node: { defaultChild?: unknown } }) =>
      s.json.Resources[logicalId(s.stack, fn)]!.Properties.ReservedConcurrentExecutions;
    for (const [group, fn] of Object.entries(base.stack.functions)) {
      expect([group, reserved(base, fn)]).toEqual([group, DEFAULTS.reservedConcurrency[group as 'events']]);
    }
    expect(reserved(base, base.stack.changeEvents.fn)).toBe(DEFAULTS.reservedConcurrency.publishChanges);
    expect(reserved(base, base.stack.horizon.fn)).toBe(1);
    // The import worker two at a time (as its queue hands out messages), the dispatcher alone.
    expect(reserved(base, base.stack.imports.worker)).toBe(2);
    expect(reserved(base, base.stack.imports.dispatcher)).toBe(1);
    for (const { id } of allFunctions(base)) expect(base.json.Resources[id]!.Properties.ReservedConcurrentExecutions).toBeGreaterThan(0);

    // 0 = unreserved (an account with a small concurrency quota); the horizon job keeps its single run.
    const none = synth({ reservedConcurrency: '0' });
    for (const fn of [...Object.values(none.stack.functions), none.stack.changeEvents.fn]) expect(reserved(none, fn)).toBeUndefined();
    expect(reserved(none, none.stack.horizon.fn)).toBe(1);
    expect(reserved(none, none.stack.imports.worker)).toBe(2);
    const some = synth({ reservedConcurrency: '{"events":40}' });
    expect(reserved(some, some.stack.functions.events)).toBe(40);
    expect(reserved(some, some.stack.functions.tags)).toBe(DEFAULTS.reservedConcurrency.tags);
  }, TIMEOUT);
});
