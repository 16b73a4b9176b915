/**
 * Assertions on the synthesised template (bundling skipped, so this stays fast). The bundled code itself is covered
 * by bundles.test.ts, cdk-nag by nag.test.ts.
 */
import { Match } from 'aws-cdk-lib/assertions';
import '../../lib/routes/match.js';
import { ROUTES } from '../../lib/routes/index.js';
import { createTableInput, TABLE } from '../../lib/store/table.js';
import { functionGroups, httpApiRoutes, routeKey, tableAccess, tableActions } from '../../infra/routes.js';
import { USER_GROUPS } from '../../infra/stack.js';
import { logicalId, resourcesOfType, synth, type Synth, type TemplateJson } from './helpers.js';

const operationCount = ROUTES.reduce((n, r) => n + r.operations.length, 0);

/** Each synth takes a second or two (more on a busy machine); the suite's default timeout is not meant for that. */
const TIMEOUT = 60_000;

let base: Synth;
beforeAll(() => {
  base = synth();
}, TIMEOUT);

const refOf = (value: any): string | undefined => value?.Ref ?? value?.['Fn::GetAtt']?.[0];

describe('table', () => {
  test('keys, attribute types, GSIs and projections equal lib/store/table.ts', () => {
    const input = createTableInput('x');
    const [[, table], ...others] = resourcesOfType(base.json, 'AWS::DynamoDB::Table');
    expect(others).toHaveLength(0);
    const p = table!.Properties;
    expect(p.KeySchema).toEqual(input.KeySchema);
    expect(p.KeySchema).toEqual([
      { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
    ]);
    expect(new Set(p.AttributeDefinitions.map(JSON.stringify))).toEqual(new Set(input.AttributeDefinitions!.map((a) => JSON.stringify(a))));
    const byName = (list: any[]) => Object.fromEntries(list.map((i) => [i.IndexName, i]));
    expect(byName(p.GlobalSecondaryIndexes)).toEqual(byName(input.GlobalSecondaryIndexes!));
    expect(p.GlobalSecondaryIndexes.map((i: any) => i.IndexName)).toEqual(TABLE.indexes.map((i) => i.name));
    // The venues by geohash cell (contract §18, lib/geo/plan.ts): a sparse index on GSI3PK/GSI3SK.
    expect(byName(p.GlobalSecondaryIndexes).byCell).toMatchObject({
      KeySchema: [{ AttributeName: 'GSI3PK', KeyType: 'HASH' }, { AttributeName: 'GSI3SK', KeyType: 'RANGE' }],
      Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: expect.arrayContaining(['lat', 'lng', 'status']) },
    });
    expect(p.LocalSecondaryIndexes).toBeUndefined();
  });

  test('on-demand, point-in-time recovery, deletion protection, retained on delete and replace', () => {
    const [[, table]] = resourcesOfType(base.json, 'AWS::DynamoDB::Table');
    expect(table!.Properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      DeletionProtectionEnabled: true,
    });
    expect(table!.Properties.TableName).toBeUndefined(); // CloudFormation names it: several stacks per account
    expect(table!.DeletionPolicy).toBe('Retain');
    expect(table!.UpdateReplacePolicy).toBe('Retain');
  });
});

describe('the horizon job (contract §13)', () => {
  test('a daily EventBridge Scheduler schedule invokes it, retries, and sends failures to an encrypted dead-letter queue', () => {
    const job = logicalId(base.stack, base.stack.horizon.fn);
    const queue = logicalId(base.stack, base.stack.horizon.deadLetters);
    const [[, schedule]] = resourcesOfType(base.json, 'AWS::Scheduler::Schedule');
    expect(schedule!.Properties).toMatchObject({
      ScheduleExpression: 'cron(17 3 * * ? *)',
      State: 'ENABLED',
      Target: { Arn: { 'Fn::GetAtt': [job, 'Arn'] }, DeadLetterConfig: { Arn: { 'Fn::GetAtt': [queue, 'Arn'] } },
        RetryPolicy: { MaximumRetryAttempts: 3, MaximumEventAgeInSeconds: 21600 } },
    });
    expect(base.json.Resources[queue]!.Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 1209600 });
  });

  test('least privilege: the schedule\'s role invokes only the job; the job reads and writes the table without Scan', () => {
    const job = logicalId(base.stack, base.stack.horizon.fn);
    const [[, schedule]] = resourcesOfType(base.json, 'AWS::Scheduler::Schedule');
    const statements = roleStatements(base.json, schedule!.Properties.Target.RoleArn['Fn::GetAtt'][0]);
    const actions = statements.flatMap((s) => s.actions).sort();
    expect(actions).toEqual(['lambda:InvokeFunction', 'sqs:SendMessage']);
    const invoke = statements.find((s) => s.actions.includes('lambda:InvokeFunction'))!;
    expect(JSON.stringify(invoke.resources)).not.toMatch(/"\*"/);
    expect(JSON.stringify(invoke.resources)).toContain(job);
    const jobRole = base.json.Resources[job]!.Properties.Role['Fn::GetAtt'][0];
    const jobActions = roleStatements(base.json, jobRole).flatMap((s) => s.actions);
    expect(jobActions).toEqual(expect.arrayContaining(['dynamodb:Query', 'dynamodb:UpdateItem']));
    expect(jobActions).not.toContain('dynamodb:Scan');
  });
});

describe('imports (contract §20)', () => {
  const id = (c: Parameters<typeof logicalId>[1]) => logicalId(base.stack, c);
  const roleOf = (fn: Parameters<typeof logicalId>[1]) => refOf(base.json.Resources[id(fn)]!.Properties.Role)!;

  test('an encrypted queue feeds the worker one message at a time, at most two at once; what keeps failing moves to an encrypted dead-letter queue', () => {
    const { queue, deadLetters, worker } = base.stack.imports;
    expect(base.json.Resources[id(queue)]!.Properties).toMatchObject({ SqsManagedSseEnabled: true,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [id(deadLetters), 'Arn'] }, maxReceiveCount: 3 } });
    expect(base.json.Resources[id(deadLetters)]!.Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 1209600 });
    const [[, mapping], ...others] = resourcesOfType(base.json, 'AWS::Lambda::EventSourceMapping').filter(([, m]) => m.Properties.FunctionName.Ref === id(worker));
    expect(others).toHaveLength(0);
    expect(mapping!.Properties).toMatchObject({ EventSourceArn: { 'Fn::GetAtt': [id(queue), 'Arn'] }, BatchSize: 1, ScalingConfig: { MaximumConcurrency: 2 },
      FunctionResponseTypes: ['ReportBatchItemFailures'] });
    const timeout = base.json.Resources[id(worker)]!.Properties.Timeout;
    expect(timeout).toBe(900);
    // A message is not delivered again while its run goes on.
    expect(base.json.Resources[id(queue)]!.Properties.VisibilityTimeout).toBeGreaterThan(timeout);
    expect(base.json.Resources[id(worker)]!.Properties.Environment.Variables).toMatchObject({
      CALENDAR_IMPORT_QUEUE_URL: { Ref: id(queue) }, CALENDAR_IMPORT_KEY_ID: { 'Fn::GetAtt': [id(base.stack.imports.key), 'Arn'] } });
  });

  test('an EventBridge Scheduler schedule invokes the dispatcher every five minutes, with retries and a dead-letter queue', () => {
    const { dispatcher, dispatcherDeadLetters } = base.stack.imports;
    const [, schedule] = resourcesOfType(base.json, 'AWS::Scheduler::Schedule').find(([, r]) => r.Properties.Target.Arn['Fn::GetAtt'][0] === id(dispatcher))!;
    expect(schedule.Properties).toMatchObject({ ScheduleExpression: 'rate(5 minutes)', State: 'ENABLED',
      Target: { DeadLetterConfig: { Arn: { 'Fn::GetAtt': [id(dispatcherDeadLetters), 'Arn'] } }, RetryPolicy: { MaximumRetryAttempts: 2 } } });
    const invoker = roleStatements(base.json, schedule.Properties.Target.RoleArn['Fn::GetAtt'][0]);
    expect(invoker.flatMap((s) => s.actions).sort()).toEqual(['lambda:InvokeFunction', 'sqs:SendMessage']);
    expect(JSON.stringify(invoker.find((s) => s.actions.includes('lambda:InvokeFunction'))!.resources)).toContain(id(dispatcher));
    expect(base.json.Resources[id(dispatcher)]!.Properties.DeadLetterConfig).toEqual({ TargetArn: { 'Fn::GetAtt': [id(dispatcherDeadLetters), 'Arn'] } });
  });

  test('a KMS key of the stack, rotated and retained, seals source passwords: the imports function may only encrypt, the worker only decrypt', () => {
    const { key, worker, dispatcher, queue } = base.stack.imports;
    expect(base.json.Resources[id(key)]).toMatchObject({ Properties: { EnableKeyRotation: true }, DeletionPolicy: 'Retain' });
    const kmsOf = (roleId: string) => roleStatements(base.json, roleId).filter((s) => s.actions.some((a) => a.startsWith('kms:')));
    const keyArn = { 'Fn::GetAtt': [id(key), 'Arn'] };
    expect(kmsOf(roleOf(base.stack.functions.imports))).toEqual([{ actions: ['kms:Encrypt'], resources: [keyArn] }]);
    expect(kmsOf(roleOf(worker))).toEqual([{ actions: ['kms:Decrypt'], resources: [keyArn] }]);
    expect(kmsOf(roleOf(dispatcher))).toEqual([]);
    for (const fn of [...Object.values(base.stack.functions), base.stack.horizon.fn, base.stack.changeEvents.fn]) {
      if (fn !== base.stack.functions.imports) expect(kmsOf(roleOf(fn)).flatMap((s) => s.resources)).not.toContainEqual(keyArn);
    }
    // Only the imports function, the worker (handing on the rest of a run) and the dispatcher send to the queue.
    const senders = [base.stack.functions.imports, worker, dispatcher].map((fn) => roleOf(fn));
    for (const [roleId] of resourcesOfType(base.json, 'AWS::IAM::Role')) {
      const sends = roleStatements(base.json, roleId).some((s) => s.actions.includes('sqs:SendMessage')
        && JSON.stringify(s.resources).includes(id(queue)));
      expect([roleId, sends]).toEqual([roleId, senders.includes(roleId)]);
    }
  });

  test('the dispatcher reads and updates only the import items (IMPORTS, IMPORT#…); the worker writes events as the API does', () => {
    const { dispatcher, worker } = base.stack.imports;
    const policy = resourcesOfType(base.json, 'AWS::IAM::Policy').find(([, p]) => p.Properties.Roles.some((r: any) => r.Ref === roleOf(dispatcher)))!;
    const ddb = policy[1].Properties.PolicyDocument.Statement.filter((st: any) => [st.Action].flat().some((a: string) => a.startsWith('dynamodb:')));
    expect(ddb).toHaveLength(1);
    expect([ddb[0].Action].flat().sort()).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem']);
    expect(ddb[0].Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['IMPORTS', 'IMPORT#*'] } });
    const workerDdb = roleStatements(base.json, roleOf(worker)).flatMap((s) => s.actions).filter((a) => a.startsWith('dynamodb:'));
    expect(new Set(workerDdb)).toEqual(new Set(tableActions('read-write')));
  });
});

describe('change events (contract §16, issue: events for other systems)', () => {
  test('the table streams new images; new change-log entries alone feed the publisher, with retries and a failure queue', () => {
    base.template.hasResourceProperties('AWS::DynamoDB::Table', { StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
      TimeToLiveSpecification: { AttributeName: 'expires', Enabled: true } });
    const fn = logicalId(base.stack, base.stack.changeEvents.fn);
    const queue = logicalId(base.stack, base.stack.changeEvents.deadLetters);
    const table = logicalId(base.stack, base.stack.table);
    const [[, mapping], ...others] = resourcesOfType(base.json, 'AWS::Lambda::EventSourceMapping')
      .filter(([, m]) => m.Properties.FunctionName.Ref === fn);
    expect(others).toHaveLength(0);
    expect(mapping!.Properties).toMatchObject({
      FunctionName: { Ref: fn }, EventSourceArn: { 'Fn::GetAtt': [table, 'StreamArn'] }, StartingPosition: 'TRIM_HORIZON',
      BisectBatchOnFunctionError: true, FunctionResponseTypes: ['ReportBatchItemFailures'], MaximumRetryAttempts: 10,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queue, 'Arn'] } } },
    });
    expect(JSON.parse(mapping!.Properties.FilterCriteria.Filters[0].Pattern))
      .toEqual({ eventName: ['INSERT'], dynamodb: { NewImage: { PK: { S: [{ prefix: 'CHG#' }] } } } });
    expect(base.json.Resources[queue]!.Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 1209600 });
  });

  test('the publisher puts events on the stack\'s own bus only, reads no table item, and knows the bus and the API URL', () => {
    const fn = logicalId(base.stack, base.stack.changeEvents.fn);
    const bus = logicalId(base.stack, base.stack.changeEvents.bus);
    const props = base.json.Resources[fn]!.Properties;
    expect(props.Environment.Variables).toMatchObject({ CALENDAR_CHANGE_BUS: { Ref: bus }, CALENDAR_API_URL: expect.anything() });
    const statements = roleStatements(base.json, props.Role['Fn::GetAtt'][0]);
    const put = statements.find((st) => st.actions.includes('events:PutEvents'))!;
    expect(put.resources).toEqual([{ 'Fn::GetAtt': [bus, 'Arn'] }]);
    const ddb = statements.flatMap((st) => st.actions).filter((a) => a.startsWith('dynamodb:')).sort();
    expect(ddb).toEqual(['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams']);
    expect(base.json.Outputs!.ChangeEventBusName!.Value).toEqual({ Ref: bus });
  });
});

describe('geocoding (contract §18, -c geocoding=true)', () => {
  test('off by default: no place index, no geocoder, no geo permission', () => {
    base.template.resourceCountIs('AWS::Location::PlaceIndex', 0);
    expect(base.stack.geocoding).toBeNull();
    expect(JSON.stringify(base.json)).not.toContain('geo:');
  });

  test('on: an Esri place index for stored results, a geocoder on the table stream filtered to venues, searching that index only', () => {
    const s = synth({ geocoding: 'true' });
    s.template.resourceCountIs('AWS::Location::PlaceIndex', 1);
    const index = s.stack.getLogicalId(s.stack.geocoding!.index);
    expect(s.json.Resources[index]!.Properties).toMatchObject({ DataSource: 'Esri', PricingPlan: 'RequestBasedUsage',
      DataSourceConfiguration: { IntendedUse: 'Storage' } });
    const fn = logicalId(s.stack, s.stack.geocoding!.fn);
    const queue = logicalId(s.stack, s.stack.geocoding!.deadLetters);
    const props = s.json.Resources[fn]!.Properties;
    expect(props.Environment.Variables).toMatchObject({ CALENDAR_PLACE_INDEX: expect.anything(), CALENDAR_GEOLOC_UNIT: 'mi' });
    const statements = roleStatements(s.json, props.Role['Fn::GetAtt'][0]);
    const geo = statements.filter((st) => st.actions.some((a) => a.startsWith('geo:')));
    expect(geo).toEqual([expect.objectContaining({ actions: ['geo:SearchPlaceIndexForText'], resources: [{ 'Fn::GetAtt': [index, 'IndexArn'] }] })]);
    const mapping = resourcesOfType(s.json, 'AWS::Lambda::EventSourceMapping').map(([, m]) => m).find((m) => m.Properties.FunctionName.Ref === fn)!;
    expect(mapping.Properties).toMatchObject({ EventSourceArn: { 'Fn::GetAtt': [logicalId(s.stack, s.stack.table), 'StreamArn'] },
      BisectBatchOnFunctionError: true, FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queue, 'Arn'] } } } });
    expect(JSON.parse(mapping.Properties.FilterCriteria.Filters[0].Pattern)).toEqual({ eventName: ['INSERT', 'MODIFY'],
      dynamodb: { NewImage: { kind: { S: ['venue'] }, SK: { S: ['POST'] }, geoOwn: [{ exists: false }] } } });
    expect(s.json.Resources[queue]!.Properties).toMatchObject({ SqsManagedSseEnabled: true });
    // Alarms as for the change publisher: errors, iterator age, failed work in the queue.
    const alarms = resourcesOfType(s.json, 'AWS::CloudWatch::Alarm').map(([, a]) => JSON.stringify(a.Properties));
    expect(alarms.filter((a) => a.includes('venue geocoder')).length).toBeGreaterThanOrEqual(3);
  }, TIMEOUT);
});

describe('functions', () => {
  test('seven functions behind the API, the pages, the horizon job, the change publisher and the import worker and dispatcher, on nodejs24.x / arm64 with ESM bundles', () => {
    const fns = resourcesOfType(base.json, 'AWS::Lambda::Function');
    expect(fns).toHaveLength(12);
    const worker = logicalId(base.stack, base.stack.imports.worker);
    const dispatcher = logicalId(base.stack, base.stack.imports.dispatcher);
    expect(base.json.Resources[dispatcher]!.Properties).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Timeout: 60,
      ReservedConcurrentExecutions: 1 });
    const job = logicalId(base.stack, base.stack.horizon.fn);
    const publisher = logicalId(base.stack, base.stack.changeEvents.fn);
    expect(base.json.Resources[job]!.Properties).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Handler: 'index.handler',
      Timeout: 900, ReservedConcurrentExecutions: 1 });
    expect(base.json.Resources[publisher]!.Properties).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'],
      Handler: 'index.handler', Timeout: 30 });
    for (const [id, fn] of fns) {
      if (id === job || id === publisher || id === worker || id === dispatcher) continue;
      expect(fn.Properties).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Handler: 'index.handler' });
      expect(fn.Properties.MemorySize).toBeGreaterThanOrEqual(512);
      expect(fn.Properties.Timeout).toBeGreaterThanOrEqual(5);
      expect(fn.Properties.Timeout).toBeLessThan(29); // below the HTTP API integration timeout
    }
    expect(Object.keys(base.stack.functions)).toEqual(functionGroups());
    expect(functionGroups()).toEqual(['root', 'events', 'venues', 'organizers', 'categories', 'tags', 'imports', 'pages']);
    // The pages' own function: more memory (rendering after in-process API calls), its own reserved concurrency.
    expect(base.json.Resources[logicalId(base.stack, base.stack.functions.pages)]!.Properties)
      .toMatchObject({ MemorySize: 1536, Timeout: 10, ReservedConcurrentExecutions: 50 });
  });

  test('environment: table, time zone, JWT issuer/audience of the user pool, source maps', () => {
    const pool = logicalId(base.stack, base.stack.userPool!);
    const client = logicalId(base.stack, base.stack.userPoolClient!);
    const table = logicalId(base.stack, base.stack.table);
    for (const [group, fn] of Object.entries(base.stack.functions)) {
      const props = base.json.Resources[logicalId(base.stack, fn)]!.Properties;
      const { CALENDAR_FUNCTIONS: forward, CALENDAR_IMPORT_QUEUE_URL: queue, CALENDAR_IMPORT_KEY_ID: key, ...rest } = props.Environment.Variables;
      // The imports function hands runs to the import queue and seals source passwords with the stack's key.
      expect([group, queue, key]).toEqual(group === 'imports'
        ? [group, { Ref: logicalId(base.stack, base.stack.imports.queue) }, { 'Fn::GetAtt': [logicalId(base.stack, base.stack.imports.key), 'Arn'] }]
        : [group, undefined, undefined]);
      expect(rest).toEqual({
        CALENDAR_TABLE_NAME: { Ref: table },
        CALENDAR_TIMEZONE: 'UTC',
        CALENDAR_JWT_ISSUER: { 'Fn::GetAtt': [pool, 'ProviderURL'] },
        CALENDAR_JWT_AUDIENCE: { Ref: client },
        CALENDAR_CACHE_SECONDS: '0',
        CALENDAR_CHANGES_RETENTION_SECONDS: '2592000',
        CALENDAR_GEOLOC_RADIUS: '25',
        CALENDAR_GEOLOC_UNIT: 'mi',
        CALENDAR_SITE_NAME: 'Calendar',
        NODE_OPTIONS: '--enable-source-maps',
        // Powertools (infra/telemetry.ts; test/infra/monitoring.test.ts covers every function)
        POWERTOOLS_SERVICE_NAME: group,
        POWERTOOLS_METRICS_NAMESPACE: 'CalendarEventsApi',
        POWERTOOLS_LOG_LEVEL: 'INFO',
        POWERTOOLS_TRACE_ENABLED: 'false',
      });
      // The root function knows the other functions, to hand them the requests that reach it (lib/aws/forward.ts).
      if (group === 'root') {
        const text = JSON.stringify(forward);
        for (const other of ['events', 'venues', 'organizers', 'categories', 'tags', 'imports', 'pages']) {
          expect(text).toContain(`{"Ref":"${logicalId(base.stack, base.stack.functions[other as 'events'])}"}`);
        }
      } else expect(forward).toBeUndefined();
    }
  });

  test('each function logs to its own log group with a retention period', () => {
    for (const fn of Object.values(base.stack.functions)) {
      const props = base.json.Resources[logicalId(base.stack, fn)]!.Properties;
      const group = base.json.Resources[props.LoggingConfig.LogGroup.Ref]!;
      expect(group.Type).toBe('AWS::Logs::LogGroup');
      expect(group.Properties.RetentionInDays).toBe(30);
      expect(props.LoggingConfig.LogFormat).toBe('JSON');
    }
  });
});

/** Every IAM statement attached to a function's role (inline policies and managed policy ARNs). */
function roleStatements(json: TemplateJson, roleId: string): { actions: string[]; resources: unknown[] }[] {
  const out: { actions: string[]; resources: unknown[] }[] = [];
  for (const [, policy] of resourcesOfType(json, 'AWS::IAM::Policy')) {
    if (!policy.Properties.Roles.some((r: any) => r.Ref === roleId)) continue;
    for (const s of policy.Properties.PolicyDocument.Statement) {
      expect(s.Effect).toBe('Allow');
      out.push({ actions: [s.Action].flat(), resources: [s.Resource].flat() });
    }
  }
  return out;
}

describe('least privilege', () => {
  test('per-function DynamoDB actions: root only account items, the others the table, nobody Scan', () => {
    const table = logicalId(base.stack, base.stack.table);
    for (const [group, fn] of Object.entries(base.stack.functions)) {
      const props = base.json.Resources[logicalId(base.stack, fn)]!.Properties;
      const roleId = refOf(props.Role)!;
      const role = base.json.Resources[roleId]!;
      expect(role.Properties.ManagedPolicyArns).toBeUndefined(); // no AWSLambdaBasicExecutionRole
      const statements = roleStatements(base.json, roleId);
      const actions = statements.flatMap((s) => s.actions);
      const ddb = actions.filter((a) => a.startsWith('dynamodb:'));
      expect(new Set(ddb)).toEqual(new Set(tableActions(tableAccess(group as never))));
      expect(ddb).not.toContain('dynamodb:Scan');
      expect(actions.some((a) => a.includes('*'))).toBe(false);
      expect(ddb).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query']));
      const ddbStatements = role.Properties.Policies ?? [];
      expect(ddbStatements).toEqual([]);
      // Only logs on its own log group besides DynamoDB (and, for root, invoking the other functions; for imports, the queue and key).
      const logs = statements.filter((s) => s.actions.some((a) => a.startsWith('logs:')));
      expect(logs.flatMap((s) => s.actions).sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
      expect(logs.flatMap((s) => s.resources)).toEqual([{ 'Fn::GetAtt': [props.LoggingConfig.LogGroup.Ref, 'Arn'] }]);
      // DynamoDB resources: the table and its named indexes, never a wildcard.
      for (const s of statements.filter((st) => st.actions.some((a) => a.startsWith('dynamodb:')))) {
        for (const r of s.resources) {
          const text = JSON.stringify(r);
          expect(text).toContain(table);
          expect(text).not.toContain('*');
        }
      }
    }
  });

  test('the root function reaches only application-password and failed-attempt items, and reads the change log; nobody BatchWriteItem', () => {
    const fn = base.stack.functions.root;
    const roleId = refOf(base.json.Resources[logicalId(base.stack, fn)]!.Properties.Role)!;
    const policy = resourcesOfType(base.json, 'AWS::IAM::Policy').find(([, p]) => p.Properties.Roles.some((r: any) => r.Ref === roleId))!;
    const ddb = policy[1].Properties.PolicyDocument.Statement.filter((st: any) => [st.Action].flat().some((a: string) => a.startsWith('dynamodb:')));
    expect(ddb).toHaveLength(2);
    expect(ddb[0].Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['APPPW#*', 'FAIL#*'] } });
    expect(ddb[0].Resource).toEqual({ 'Fn::GetAtt': [logicalId(base.stack, base.stack.table), 'Arn'] });
    // The changes feed: reads only, of the change log, the counters and user ids.
    expect(ddb[1].Action).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query']);
    expect(ddb[1].Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['CHG#*', 'COUNTER', 'USER#*', 'USERH#*'] } });
    expect(ddb[1].Resource).toEqual({ 'Fn::GetAtt': [logicalId(base.stack, base.stack.table), 'Arn'] });
    const invoke = policy[1].Properties.PolicyDocument.Statement.find((st: any) => st.Sid === 'ForwardToRouteGroups');
    expect(invoke.Action).toBe('lambda:InvokeFunction');
    expect(invoke.Resource).toHaveLength(7);
    for (const group of functionGroups()) expect(tableActions(tableAccess(group))).not.toContain('dynamodb:BatchWriteItem');
  });
});

describe('HTTP API', () => {
  const expected = httpApiRoutes();

  test('one route per key of infra/routes.ts (both bases, every prefix), plus $default, within the quota', () => {
    const routes = resourcesOfType(base.json, 'AWS::ApiGatewayV2::Route');
    const keys = routes.map(([, r]) => r.Properties.RouteKey as string);
    expect(new Set(keys)).toEqual(new Set([...expected.map(routeKey), '$default']));
    expect(keys).toContain('GET /wp-json/tribe/events/v1/events/{proxy+}');
    expect(keys).toContain('ANY /wp-json/tribe/events/v1/events/{proxy+}');
    expect(keys).toContain('ANY /de/calendar/events/v1');
    // The origin's base under a language prefix comes through $default (infra/routes.ts).
    expect(keys).not.toContain('ANY /de/wp-json/tribe/events/v1/events/{proxy+}');
    // The pages, under every prefix: the event pages with a read key and a key for their forms' posts.
    expect(keys).toEqual(expect.arrayContaining(['ANY /events/{proxy+}', 'ANY /pt-pt/events', 'GET /de/event/{proxy+}', 'ANY /de/event/{proxy+}',
      'ANY /en/organizer/{proxy+}']));
    expect(keys.length).toBeLessThanOrEqual(280); // HTTP API default quota: 300 routes per API, with a margin
    expect(operationCount).toBeGreaterThan(50);
  });

  test('each route targets its group function; $default targets root', () => {
    const integrationFunction: Record<string, string> = {};
    for (const [id, integration] of resourcesOfType(base.json, 'AWS::ApiGatewayV2::Integration')) {
      expect(integration.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
      integrationFunction[id] = refOf(integration.Properties.IntegrationUri)!;
    }
    const fnId = Object.fromEntries(Object.entries(base.stack.functions).map(([g, fn]) => [g, logicalId(base.stack, fn)]));
    const byKey = new Map(expected.map((r) => [routeKey(r), r]));
    for (const [, route] of resourcesOfType(base.json, 'AWS::ApiGatewayV2::Route')) {
      const target = route.Properties.Target['Fn::Join'][1][1].Ref as string;
      const key = route.Properties.RouteKey as string;
      const group = key === '$default' ? 'root' : byKey.get(key)!.group;
      expect(integrationFunction[target]).toBe(fnId[group]);
    }
  });

  test('no route has an authorizer that could turn a Basic credential away before the function checks it', () => {
    expect(resourcesOfType(base.json, 'AWS::ApiGatewayV2::Authorizer')).toEqual([]);
    for (const [, route] of resourcesOfType(base.json, 'AWS::ApiGatewayV2::Route')) {
      expect(route.Properties.AuthorizationType).toBe('NONE');
      expect(route.Properties.AuthorizerId).toBeUndefined();
    }
  });

  test('stage: $default, auto-deployed, throttled from context, JSON access logs with retention', () => {
    const [[, stage], ...more] = resourcesOfType(base.json, 'AWS::ApiGatewayV2::Stage');
    expect(more).toHaveLength(0);
    expect(stage!.Properties).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 },
    });
    const logGroup = base.json.Resources[refOf(stage!.Properties.AccessLogSettings.DestinationArn)!]!;
    expect(logGroup.Type).toBe('AWS::Logs::LogGroup');
    expect(logGroup.Properties.RetentionInDays).toBe(30);
    const format = JSON.parse(stage!.Properties.AccessLogSettings.Format);
    expect(format).toMatchObject({ requestId: '$context.requestId', status: '$context.status', routeKey: '$context.routeKey' });
  });

  test('CORS matches the contract', () => {
    base.template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      ProtocolType: 'HTTP',
      CorsConfiguration: {
        AllowOrigins: ['*'],
        AllowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
        // The lists of contract §1, written out here rather than read from the code under test.
        AllowHeaders: ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'Idempotency-Key'],
        ExposeHeaders: ['X-TEC-Total', 'X-TEC-TotalPages', 'Link', 'ETag', 'Content-Language', 'Location', 'Allow', 'Retry-After',
          'WWW-Authenticate', 'Idempotent-Replayed'],
        AllowCredentials: false,
        MaxAge: 86400,
      },
    });
  });

  test('every function may be invoked by this API only', () => {
    const apiId = logicalId(base.stack, base.stack.api);
    const perms = resourcesOfType(base.json, 'AWS::Lambda::Permission');
    const invoked = new Set<string>();
    for (const [, perm] of perms) {
      expect(perm.Properties.Principal).toBe('apigateway.amazonaws.com');
      expect(JSON.stringify(perm.Properties.SourceArn)).toContain(`{"Ref":"${apiId}"}`);
      invoked.add(refOf(perm.Properties.FunctionName)!);
    }
    expect(invoked.size).toBe(functionGroups().length);
  });
});

describe('Cognito', () => {
  test('admin-created users, strong passwords, groups editor/author/contributor, retained', () => {
    const [[, pool]] = resourcesOfType(base.json, 'AWS::Cognito::UserPool');
    expect(pool!.Properties).toMatchObject({
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      Policies: { PasswordPolicy: { MinimumLength: 12, RequireUppercase: true, RequireLowercase: true, RequireNumbers: true, RequireSymbols: true } },
      DeletionProtection: 'ACTIVE',
    });
    expect(pool!.DeletionPolicy).toBe('Retain');
    const groups = resourcesOfType(base.json, 'AWS::Cognito::UserPoolGroup').map(([, g]) => g.Properties.GroupName).sort();
    expect(groups).toEqual(['author', 'contributor', 'editor']);
    expect(USER_GROUPS.map((g) => g.name)).toEqual(['editor', 'author', 'contributor']);
  });

  test('app client: USER_PASSWORD_AUTH and SRP, no secret, no OAuth', () => {
    base.template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      ExplicitAuthFlows: Match.arrayEquals(['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH']),
      GenerateSecret: false,
      AllowedOAuthFlowsUserPoolClient: false,
      PreventUserExistenceErrors: 'ENABLED',
    });
  });
});

describe('outputs', () => {
  test('API URL (with /calendar/events/v1), user pool id, client id, table name', () => {
    const outputs = base.json.Outputs!;
    expect(JSON.stringify(outputs.ApiUrl!.Value)).toContain('/calendar/events/v1');
    expect(outputs.ApiUrl!.Value).toEqual({
      'Fn::Join': ['', [{ 'Fn::GetAtt': [logicalId(base.stack, base.stack.api), 'ApiEndpoint'] }, '/calendar/events/v1']],
    });
    expect(outputs.UserPoolId!.Value).toEqual({ Ref: logicalId(base.stack, base.stack.userPool!) });
    expect(outputs.UserPoolClientId!.Value).toEqual({ Ref: logicalId(base.stack, base.stack.userPoolClient!) });
    expect(outputs.TableName!.Value).toEqual({ Ref: logicalId(base.stack, base.stack.table) });
  });
});

describe('configuration by context', () => {
  test('throttling, time zone, site URL, named stage, stack name, cache lifetime, default geo radius', () => {
    const s = synth({
      throttlingRateLimit: '7',
      throttlingBurstLimit: '9',
      siteTimezone: 'Europe/Lisbon',
      siteUrl: 'https://calendar.example.org',
      siteName: 'Stadtkalender',
      stageName: 'prod',
      stackName: 'CalendarStaging',
      logRetentionDays: '90',
      cacheSeconds: '120',
      geolocRadius: '40.5',
      geolocUnit: 'KM',
    });
    expect(s.stack.stackName).toBe('CalendarStaging');
    s.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: 'prod',
      DefaultRouteSettings: { ThrottlingRateLimit: 7, ThrottlingBurstLimit: 9 },
    });
    s.template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ CALENDAR_TIMEZONE: 'Europe/Lisbon', CALENDAR_SITE_URL: 'https://calendar.example.org',
        CALENDAR_SITE_NAME: 'Stadtkalender', CALENDAR_CACHE_SECONDS: '120', CALENDAR_GEOLOC_RADIUS: '40.5', CALENDAR_GEOLOC_UNIT: 'km' }) },
    });
    s.template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 90 });
    expect(JSON.stringify(s.json.Outputs!.ApiUrl!.Value)).toContain('/prod/calendar/events/v1');
  }, TIMEOUT);

  test('an existing issuer instead of the user pool', () => {
    const s = synth({ createUserPool: 'false', jwtIssuer: 'https://issuer.example.org/tenant', jwtAudience: 'my-client' });
    s.template.resourceCountIs('AWS::Cognito::UserPool', 0);
    s.template.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 0);
    s.template.allResourcesProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ CALENDAR_JWT_ISSUER: 'https://issuer.example.org/tenant', CALENDAR_JWT_AUDIENCE: 'my-client' }) },
    });
    expect(s.json.Outputs!.UserPoolId).toBeUndefined();
  }, TIMEOUT);

  test('custom domain: domain name with the certificate, mapped to the stage', () => {
    const arn = 'arn:aws:acm:eu-west-1:123456789012:certificate/0a1b2c3d-1234-4abc-9def-0123456789ab';
    const s = synth({ domainName: 'api.example.org', certificateArn: arn });
    s.template.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainName: 'api.example.org',
      DomainNameConfigurations: [Match.objectLike({ CertificateArn: arn, EndpointType: 'REGIONAL', SecurityPolicy: 'TLS_1_2' })],
    });
    s.template.resourceCountIs('AWS::ApiGatewayV2::ApiMapping', 1);
    expect(s.json.Outputs!.CustomDomainUrl!.Value).toBe('https://api.example.org/calendar/events/v1');
  }, TIMEOUT);

  test('samLocal declares the local-only variables and cannot be deployed; the default template has neither', () => {
    const s = synth({ samLocal: 'true' });
    s.template.allResourcesProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ AWS_ENDPOINT_URL_DYNAMODB: Match.anyValue(), CALENDAR_JWT_SECRET: '' }) },
    });
    expect(Object.keys(s.json.Rules ?? {})).toContain('SamLocalTemplateIsNotDeployable');
    expect(Object.keys(base.json.Rules ?? {})).not.toContain('SamLocalTemplateIsNotDeployable');
    for (const [, fn] of resourcesOfType(base.json, 'AWS::Lambda::Function')) {
      expect(fn.Properties.Environment.Variables.AWS_ENDPOINT_URL_DYNAMODB).toBeUndefined();
      expect(fn.Properties.Environment.Variables.CALENDAR_JWT_SECRET).toBeUndefined();
    }
  }, TIMEOUT);
});
