/**
 * The Calendar Events API in one stack: DynamoDB table, one Lambda function per route group, an API Gateway HTTP API
 * whose routes come from the handlers' own route definitions, and a Cognito user pool that issues the tokens.
 *
 * Authentication happens in the functions, not in API Gateway: they verify Bearer tokens (the pool's JWKS) and
 * WordPress application passwords over HTTP Basic (contract §12). A JWT authorizer would turn Basic away before a
 * function could check it, and a Lambda authorizer would add an invocation per request and a second place for the
 * same rules, the failed-attempt limit among them; the functions verify tokens on reads already.
 */
import { CfnOutput, CfnRule, Duration, Fn, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  type CfnStage,
  CorsHttpMethod,
  DomainName,
  HttpApi,
  HttpMethod,
  HttpNoneAuthorizer,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
  SecurityPolicy,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as location from 'aws-cdk-lib/aws-location';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as schedulerTargets from 'aws-cdk-lib/aws-scheduler-targets';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { CORS } from '../lib/http/cors.js';
import { ORIGIN_SECRET_VARIABLE } from '../lib/http/middleware/edge-origin.js';
import { NAMESPACE, type FunctionGroup } from '../lib/routes/types.js';
import { createTableInput, TABLE } from '../lib/store/table.js';
import { functionCode } from './bundling.js';
import type { CalendarConfig } from './config.js';
import { CalendarMonitoring } from './monitoring.js';
import { acknowledgeTelemetry, functionTelemetry } from './telemetry.js';
import { Edge } from './edge.js';
import {
  ACCOUNT_KEY_PREFIXES,
  CHANGE_READ_KEYS,
  DEFAULT_ROUTE_GROUP,
  IMPORT_KEY_PREFIXES,
  functionGroups,
  httpApiRoutes,
  READ_ACTIONS,
  routeKey,
  tableAccess,
  WRITE_ACTIONS,
  type HttpApiRoute,
  type TableAccess,
} from './routes.js';

/** Cognito groups the handlers map to roles (lib/auth/roles.ts): highest wins, no group = subscriber. */
export const USER_GROUPS = [
  { name: 'editor', precedence: 1, description: 'Edits and deletes everything, including other people\'s records, and manages categories and tags.' },
  { name: 'author', precedence: 2, description: 'Publishes and edits their own events, venues and organizers; manages categories.' },
  { name: 'contributor', precedence: 3, description: 'Submits their own events, venues and organizers for review (pending/draft).' },
] as const;

/**
 * Memory and timeout per function.
 * - Memory: Lambda allocates CPU in proportion to memory (1,769 MB = 1 vCPU). Cold starts are CPU-bound (parsing a
 *   few hundred KB of minified bundle: SDK, middy, jose, the HTML tokenizer); at 128-256 MB they take several times
 *   longer, while warm requests mostly wait on DynamoDB. 1,024 MB (~0.6 vCPU) keeps cold starts short for the data
 *   functions at about $0.0000167 per GB-second on arm64, i.e. well under API Gateway's $1 per million requests
 *   for a typical 30-60 ms request. The root function renders documents from static definitions and manages
 *   application passwords: 512 MB.
 * - Timeout: an HTTP API gives up on an integration after 30 s (29 s configurable maximum); a request here is a
 *   handful of single-digit-millisecond DynamoDB calls (a list reads one window of small index items, a write is
 *   one transaction) plus SDK retries (3 attempts with backoff). 10 s is far above any healthy request and well
 *   below the gateway's limit, so a stuck call ends in the function (logged, billed for 10 s at most) instead of
 *   as an anonymous gateway 503. The root function needs no network at all: 5 s. The events function writes a
 *   recurring series' occurrences (up to 1,000, a few seconds of batched transactions) within the request: 25 s.
 *   The pages (contract §21) are a function of their own (why: infra/routes.ts `functionGroups`).
 */
const SIZING: Record<FunctionGroup, { memoryMb: number; timeout: Duration }> = {
  root: { memoryMb: 512, timeout: Duration.seconds(5) },
  events: { memoryMb: 1024, timeout: Duration.seconds(25) },
  venues: { memoryMb: 1024, timeout: Duration.seconds(10) },
  organizers: { memoryMb: 1024, timeout: Duration.seconds(10) },
  categories: { memoryMb: 1024, timeout: Duration.seconds(10) },
  tags: { memoryMb: 1024, timeout: Duration.seconds(10) },
  // A page runs two to four API operations in-process and renders HTML from their answers: more CPU per request than
  // a data function, so more memory; a page is a handful of reads (an RSVP one transaction), so the data functions' 10 s.
  pages: { memoryMb: 1536, timeout: Duration.seconds(10) },
  // Imports (contract §20): a request stores an import or queues a run; the runs are the import worker's (buildImports).
  imports: { memoryMb: 1024, timeout: Duration.seconds(10) },
};


/** Values for the local-only variables declared in a `samLocal` synth (lib/local/sam-env.ts overrides them). */
export const SAM_LOCAL_PLACEHOLDERS = {
  AWS_ENDPOINT_URL_DYNAMODB: 'http://host.docker.internal:8000',
  CALENDAR_JWT_SECRET: '',
} as const;

const pascal = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** Reserved concurrency from the configuration: 0 leaves the function on the account's unreserved pool. */
const reserved = (n: number): { reservedConcurrentExecutions?: number } => (n > 0 ? { reservedConcurrentExecutions: n } : {});

export interface CalendarStackProps extends StackProps {
  config: CalendarConfig;
}

export class CalendarStack extends Stack {
  readonly config: CalendarConfig;
  readonly table: dynamodb.Table;
  readonly functions: Record<FunctionGroup, lambda.Function>;
  /** Change events: the bus, the function that publishes the table stream's new change-log entries, its failure queue. */
  readonly changeEvents: { bus: events.EventBus; fn: lambda.Function; deadLetters: sqs.Queue };
  /** With `-c geocoding=true`: the place index and the function that geocodes venues from the table's stream. */
  readonly geocoding: { index: location.CfnPlaceIndex; fn: lambda.Function; deadLetters: sqs.Queue } | null;
  /** The recurring series' horizon job (contract §13), its daily schedule and the schedule's dead-letter queue. */
  readonly horizon: { fn: lambda.Function; schedule: scheduler.Schedule; deadLetters: sqs.Queue };
  /** Imports (contract §20): the worker fed by its queue, the dispatcher on its schedule, and the key that seals source passwords. */
  readonly imports: ImportParts;
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly userPool: cognito.UserPool | null;
  readonly userPoolClient: cognito.UserPoolClient | null;
  /** Every route of httpApiRoutes() (both bases, every prefix), in its order. */
  readonly routes: { spec: HttpApiRoute; route: HttpRoute }[] = [];
  /** The `$default` catch-all (root function): unknown paths and methods get the API's own 404/405 JSON. */
  readonly defaultRoute: HttpRoute;
  /** The CloudFront distribution with the web ACL (context `waf`), or null. */
  readonly edge: Edge | null;
  /** Base URL of the API, e.g. https://abc.execute-api.eu-west-1.amazonaws.com/calendar/events/v1 */
  readonly apiUrl: string;
  /** Alarms, their SNS topic and the dashboard (infra/monitoring.ts). */
  readonly monitoring: CalendarMonitoring;

  constructor(scope: Construct, id: string, props: CalendarStackProps) {
    super(scope, id, props);
    const config = (this.config = props.config);
    const retention = config.logRetentionDays as logs.RetentionDays;
    const ack = (at: Construct, rule: string, reason: string) =>
      Validations.of(at).acknowledge({ id: `AwsSolutions::AwsSolutions-${rule}`, reason });

    // ---------------------------------------------------------------- table
    this.table = buildTable(this);

    // ---------------------------------------------------------------- identity
    let issuer: string;
    let audience: string;
    if (config.createUserPool) {
      const pool = new cognito.UserPool(this, 'UserPool', {
        // Accounts are created by an administrator (docs/deploying.md, "Users and tokens"); nobody can sign themselves up.
        selfSignUpEnabled: false,
        signInAliases: { email: true },
        autoVerify: { email: true },
        standardAttributes: { email: { required: true, mutable: true } },
        passwordPolicy: {
          minLength: 12,
          requireLowercase: true,
          requireUppercase: true,
          requireDigits: true,
          requireSymbols: true,
          tempPasswordValidity: Duration.days(3),
        },
        mfa: cognito.Mfa.OPTIONAL,
        mfaSecondFactor: { otp: true, sms: false },
        accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
        featurePlan: cognito.FeaturePlan.ESSENTIALS,
        deletionProtection: true,
        // Accounts and their `sub`s (the key of every author's user id) outlive the stack.
        removalPolicy: RemovalPolicy.RETAIN,
      });
      for (const group of USER_GROUPS) {
        new cognito.UserPoolGroup(this, `${pascal(group.name)}Group`, {
          userPool: pool,
          groupName: group.name,
          precedence: group.precedence,
          description: group.description,
        });
      }
      const client = pool.addClient('ApiClient', {
        // Public client (CLI, browser): no secret. USER_PASSWORD_AUTH for `aws cognito-idp initiate-auth` in
        // docs/deploying.md, SRP for SDK/Amplify sign-in; no hosted UI / OAuth flows.
        generateSecret: false,
        authFlows: { userPassword: true, userSrp: true },
        disableOAuth: true,
        supportedIdentityProviders: [cognito.UserPoolClientIdentityProvider.COGNITO],
        preventUserExistenceErrors: true,
        enableTokenRevocation: true,
        idTokenValidity: Duration.hours(1),
        accessTokenValidity: Duration.hours(1),
        refreshTokenValidity: Duration.days(30),
      });
      this.userPool = pool;
      this.userPoolClient = client;
      // ID tokens carry `cognito:groups` and aud = client id; the handlers verify them against the pool's JWKS.
      issuer = pool.userPoolProviderUrl;
      audience = client.userPoolClientId;

      ack(pool, 'COG2', 'MFA is OPTIONAL with TOTP: editors and authors can (and should) enrol an authenticator app, but ' +
        'REQUIRED MFA would block the documented CLI sign-in (USER_PASSWORD_AUTH) and API automation accounts. The pool ' +
        'only guards write access to public calendar data; accounts are admin-created (no self sign-up) with a 12-character ' +
        'complex password policy.');
      ack(pool, 'COG8', 'The Essentials feature plan is used deliberately: Plus (threat protection) is billed per monthly ' +
        'active user, and sign-up is closed, so the pool only holds a handful of staff accounts created by an administrator. ' +
        'Operators who want adaptive authentication can switch featurePlan to PLUS without other changes.');
    } else {
      this.userPool = null;
      this.userPoolClient = null;
      issuer = config.jwtIssuer!;
      audience = config.jwtAudience!;
    }

    // ---------------------------------------------------------------- functions
    const environment: Record<string, string> = {
      CALENDAR_TABLE_NAME: this.table.tableName,
      CALENDAR_TIMEZONE: config.siteTimezone,
      CALENDAR_JWT_ISSUER: issuer,
      CALENDAR_JWT_AUDIENCE: audience,
      CALENDAR_CACHE_SECONDS: String(config.cacheSeconds),
      CALENDAR_CHANGES_RETENTION_SECONDS: String(config.changesRetentionSeconds),
      CALENDAR_GEOLOC_RADIUS: String(config.geolocRadius),
      CALENDAR_GEOLOC_UNIT: config.geolocUnit,
      NODE_OPTIONS: '--enable-source-maps',
      ...(config.siteUrl ? { CALENDAR_SITE_URL: config.siteUrl } : {}),
      CALENDAR_SITE_NAME: config.siteName,
      // Declared only in a `samLocal` synth, so that sam local's --env-vars file can set them (SAM only overrides
      // variables the template declares); never part of a deployable template (see the rule below).
      ...(config.samLocal ? SAM_LOCAL_PLACEHOLDERS : {}),
    };

    const functions = {} as Record<FunctionGroup, lambda.Function>;
    for (const group of functionGroups()) {
      functions[group] = this.buildFunction(group, environment, retention);
    }
    this.functions = functions;
    // The root function hands requests that reach it under another spelling of a route to that route's function
    // (lib/aws/forward.ts), so AWS answers every spelling as the local server does.
    const others = functionGroups().filter((g) => g !== DEFAULT_ROUTE_GROUP);
    functions[DEFAULT_ROUTE_GROUP].addEnvironment('CALENDAR_FUNCTIONS',
      Stack.of(this).toJsonString(Object.fromEntries(others.map((g) => [g, functions[g].functionName]))));
    functions[DEFAULT_ROUTE_GROUP].role!.addToPrincipalPolicy(new iam.PolicyStatement({
      sid: 'ForwardToRouteGroups', actions: ['lambda:InvokeFunction'], resources: others.map((g) => functions[g].functionArn),
    }));

    // ---------------------------------------------------------------- the horizon job
    this.horizon = this.buildHorizonJob(environment, retention);

    // ---------------------------------------------------------------- imports
    this.imports = this.buildImports(environment, retention, functions.imports);

    // ---------------------------------------------------------------- API
    const api = new HttpApi(this, 'HttpApi', {
      apiName: `${this.stackName}-api`,
      description: `Calendar Events API (${NAMESPACE})`,
      createDefaultStage: false,
      // The one CORS definition (lib/http/cors.ts), which the functions use too.
      corsPreflight: {
        allowOrigins: [CORS.allowOrigin],
        allowMethods: CORS.allowMethods.map((m) => CorsHttpMethod[m]),
        allowHeaders: [...CORS.allowHeaders],
        exposeHeaders: [...CORS.exposeHeaders],
        allowCredentials: false,
        maxAge: Duration.seconds(CORS.maxAgeSeconds),
      },
    });
    this.api = api;

    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const domain = config.customDomain
      ? new DomainName(this, 'Domain', {
          domainName: config.customDomain.domainName,
          certificate: Certificate.fromCertificateArn(this, 'Certificate', config.customDomain.certificateArn),
          securityPolicy: SecurityPolicy.TLS_1_2,
        })
      : null;
    this.stage = new HttpStage(this, 'Stage', {
      httpApi: api,
      stageName: config.stageName,
      autoDeploy: true,
      throttle: { rateLimit: config.throttlingRateLimit, burstLimit: config.throttlingBurstLimit },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
      ...(domain ? { domainMapping: { domainName: domain } } : {}),
    });

    // One integration per function; its invoke permission covers this API's routes (arn:…:<api-id>/*/*/*): per-route
    // permissions for dozens of greedy routes would push the functions' resource policies towards Lambda's 20 KB limit.
    const integrations = {} as Record<FunctionGroup, HttpLambdaIntegration>;
    for (const group of functionGroups()) {
      integrations[group] = new HttpLambdaIntegration(`${pascal(group)}Integration`, functions[group], { scopePermissionToRoute: false });
    }

    // No route carries an API Gateway authorizer: the functions authenticate (see the file comment). cdk-nag's "no
    // authorization" finding is acknowledged on each route's own resource, with that reason.
    const routes = new Construct(this, 'Routes');
    const none = new HttpNoneAuthorizer();
    const acknowledge = (route: HttpRoute, what: string) =>
      ack(route.node.defaultChild as Construct, 'APIG4', `${what} Published records are readable by anyone (contract §4, ` +
        'as in the origin API); every other operation is authorised by the function itself, which verifies Bearer ' +
        'tokens against the user pool and application passwords over HTTP Basic (contract §12) before it reads a ' +
        'record: an API Gateway JWT authorizer would refuse Basic credentials that the origin\'s clients send.');
    for (const spec of httpApiRoutes()) {
      const route = new HttpRoute(routes, routeKey(spec), {
        httpApi: api,
        routeKey: HttpRouteKey.with(spec.path, HttpMethod[spec.method]),
        integration: integrations[spec.group],
        authorizer: none,
      });
      acknowledge(route, `Route of the ${spec.group} function.`);
      this.routes.push({ spec, route });
    }
    this.defaultRoute = new HttpRoute(routes, 'Default', {
      httpApi: api,
      routeKey: HttpRouteKey.DEFAULT,
      integration: integrations[DEFAULT_ROUTE_GROUP],
      authorizer: none,
    });
    acknowledge(this.defaultRoute, 'The $default catch-all reaches the root function, which redirects other spellings of a ' +
      'route to it and answers 404 for unknown paths without reading any data.');

    // Each route key gets the throttle of its traffic class (infra/routes.ts); the stage-wide throttle covers $default.
    // The settings name route keys, which must exist before the stage that refers to them.
    (this.stage.node.defaultChild as CfnStage).routeSettings = Object.fromEntries(this.routes.map(({ spec }) => {
      const limits = config.routeThrottles[spec.traffic];
      return [routeKey(spec), { ThrottlingRateLimit: limits.rateLimit, ThrottlingBurstLimit: limits.burstLimit }];
    }));
    this.stage.node.addDependency(routes);

    // ---------------------------------------------------------------- edge (context `waf`)
    this.edge = config.waf ? new Edge(this, 'Edge', { config, api }) : null;
    if (this.edge) {
      const secret = this.edge.originSecret.secretValue.unsafeUnwrap();
      for (const fn of Object.values(functions)) fn.addEnvironment(ORIGIN_SECRET_VARIABLE, secret);
    }

    // ---------------------------------------------------------------- outputs
    const basePath = config.stageName === '$default' ? '' : `/${config.stageName}`;
    const endpoint = this.edge ? `https://${this.edge.distribution.distributionDomainName}` : api.apiEndpoint;
    this.apiUrl = `${endpoint}${basePath}/${NAMESPACE}`;
    new CfnOutput(this, 'ApiUrl', { value: this.apiUrl, description: this.edge
      ? 'Base URL of the API (namespace index), through the CloudFront distribution and its web ACL'
      : 'Base URL of the API (namespace index)' });

    // ---------------------------------------------------------------- change events
    this.changeEvents = this.buildChangeEvents(environment, retention);
    this.geocoding = config.geocoding ? this.buildGeocoding(environment, retention) : null;
    if (domain) {
      new CfnOutput(this, 'CustomDomainUrl', {
        value: `https://${config.customDomain!.domainName}/${NAMESPACE}`,
        description: 'Base URL on the custom domain (after DNS points at CustomDomainTarget)',
      });
      new CfnOutput(this, 'CustomDomainTarget', {
        value: domain.regionalDomainName,
        description: 'CNAME / alias target for the custom domain (hosted zone id in CustomDomainHostedZoneId)',
      });
      new CfnOutput(this, 'CustomDomainHostedZoneId', { value: domain.regionalHostedZoneId });
    }
    if (this.userPool && this.userPoolClient) {
      new CfnOutput(this, 'UserPoolId', { value: this.userPool.userPoolId });
      new CfnOutput(this, 'UserPoolClientId', { value: this.userPoolClient.userPoolClientId });
    }
    new CfnOutput(this, 'JwtIssuer', { value: issuer });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });

    this.monitoring = new CalendarMonitoring(this, 'Monitoring', {
      config, api, stage: this.stage, table: this.table, functions, horizon: this.horizon, changeEvents: this.changeEvents,
      geocoding: this.geocoding, imports: this.imports,
    });

    if (config.samLocal) {
      // A samLocal template declares local-only variables; CloudFormation evaluates rules before any change, so
      // deploying it (e.g. `cdk deploy --app cdk.out`) fails immediately. `cdk deploy` re-synthesises without it.
      new CfnRule(this, 'SamLocalTemplateIsNotDeployable', {
        assertions: [
          {
            assert: Fn.conditionEquals('sam-local', 'deployable'),
            assertDescription:
              'This template was synthesised for sam local (-c samLocal=true) and must not be deployed: run `npx cdk deploy` without it.',
          },
        ],
      });
    }
  }

  /**
   * The horizon job (functions/horizon.ts): an EventBridge Scheduler schedule invokes it once a day; it extends open
   * series to the horizon and finishes regenerations whose requests died. Idempotent, so the schedule's retries are safe;
   * an invocation that still fails lands in an encrypted dead-letter queue kept 14 days.
   */
  private buildHorizonJob(environment: Record<string, string>, retention: logs.RetentionDays):
    { fn: lambda.Function; schedule: scheduler.Schedule; deadLetters: sqs.Queue } {
    const deadLetters = this.deadLetterQueue('HorizonDeadLetters', 'the dead-letter queue of the horizon schedule and of the '
      + 'job itself; a failed invocation waits here for an operator (the job is idempotent: invoking it again repairs).');
    const fn = this.buildLambda('Horizon', 'functions/horizon.ts', 'Calendar API: extends recurring series to the horizon, daily',
      'Calendar API recurring-series horizon job', 'read-write', environment, retention, {
        memorySize: 1024,
        // One run regenerates every open series that the horizon has moved past; it stops starting new ones near the end.
        timeout: Duration.minutes(15),
        // One run at a time: a second could only take over the same series.
        reservedConcurrentExecutions: 1,
        // The scheduler invokes asynchronously: its dead-letter queue receives invocations it could not deliver, this one
        // the runs that failed after Lambda's own retries.
        deadLetterQueue: deadLetters,
      });
    // The schedule's own role: it may invoke this function and send to the dead-letter queue, nothing else.
    const invoker = new iam.Role(this, 'HorizonScheduleRole', {
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', { conditions: { StringEquals: { 'aws:SourceAccount': this.account } } }),
      description: 'Calendar API: the horizon schedule invokes the horizon job',
    });
    const schedule = new scheduler.Schedule(this, 'HorizonSchedule', {
      description: 'Daily run of the recurring-series horizon job (contract §13)',
      schedule: scheduler.ScheduleExpression.cron({ minute: '17', hour: '3' }),
      target: new schedulerTargets.LambdaInvoke(fn, {
        role: invoker,
        deadLetterQueue: deadLetters,
        retryAttempts: 3,
        maxEventAge: Duration.hours(6),
      }),
    });
    Validations.of(invoker).acknowledge({ id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${this.getLogicalId(fn.node.defaultChild as lambda.CfnFunction)}.Arn>:*]`,
      reason: 'lambda:InvokeFunction on the horizon function\'s own ARN and its versions (ARN:*), as the scheduler target grants it: '
        + 'this role can invoke that one function only.' });
    return { fn, schedule, deadLetters };
  }

  /**
   * Imports (contract §20). A KMS key of the stack seals the application passwords of tec sources: the imports function
   * may only encrypt with it, the worker only decrypt, both bound to the import by the encryption context. The imports
   * function and the dispatcher put messages on the import queue; the worker consumes it (one message at a time, at most
   * two workers at once, so a large import cannot crowd out the API's writes), and a message that keeps failing goes to
   * an encrypted dead-letter queue. An EventBridge Scheduler schedule invokes the dispatcher every five minutes, which
   * queues due runs (scheduled runs start within 15 minutes of their time) and hands on stalled ones; its failed
   * invocations go to a dead-letter queue of their own.
   */
  private buildImports(environment: Record<string, string>, retention: logs.RetentionDays, api: lambda.Function): ImportParts {
    const key = new kms.Key(this, 'ImportPasswordKey', {
      description: `${this.stackName}: seals the application passwords of import sources`,
      enableKeyRotation: true,
      // The sealed passwords live in the retained table: without the key they could never be opened again.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const deadLetters = this.deadLetterQueue('ImportDeadLetters', 'the dead-letter queue of the import queue: a message whose run kept failing '
      + 'waits here for an operator (the import\'s run is taken up again by the dispatcher once its cause is fixed).');
    const queue = new sqs.Queue(this, 'ImportQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Longer than a worker's run (15 minutes), so a message is not delivered again while its run goes on.
      visibilityTimeout: Duration.minutes(16),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: deadLetters, maxReceiveCount: 3 },
    });
    const wiring = { CALENDAR_IMPORT_QUEUE_URL: queue.queueUrl, CALENDAR_IMPORT_KEY_ID: key.keyArn };
    const worker = this.buildLambda('ImportWorker', 'functions/import-worker.ts', 'Calendar API: runs imports (contract §20)',
      'Calendar API import worker', 'read-write', { ...environment, ...wiring }, retention,
      // Two at a time (the queue's own limit too), whatever the rest of the account does.
      { memorySize: 1024, timeout: Duration.minutes(15), reservedConcurrentExecutions: 2 });
    worker.addEventSource(new SqsEventSource(queue, { batchSize: 1, maxConcurrency: 2, reportBatchItemFailures: true }));
    Validations.of(worker).acknowledge({ id: 'Serverless::Serverless-LambdaDLQ', reason: 'The import queue invokes this function '
      + 'synchronously through its event source; messages that keep failing go to the queue\'s own dead-letter queue.' });
    Validations.of(worker).acknowledge({ id: 'Serverless::Serverless-LambdaEventSourceMappingDestination', reason: 'An SQS event '
      + 'source mapping takes no on-failure destination: a message that keeps failing moves to the import queue\'s dead-letter '
      + 'queue by its redrive policy (three receives), which has an alarm.' });
    const dispatcherDeadLetters = this.deadLetterQueue('ImportDispatcherDeadLetters', 'the dead-letter queue of the import '
      + 'dispatcher\'s schedule and of the dispatcher itself; the next invocation, five minutes later, does the same work.');
    const dispatcher = this.buildLambda('ImportDispatcher', 'functions/import-dispatcher.ts', 'Calendar API: queues due and stalled imports',
      'Calendar API import dispatcher', 'imports', { ...environment, CALENDAR_IMPORT_QUEUE_URL: queue.queueUrl }, retention,
      { memorySize: 256, timeout: Duration.minutes(1), reservedConcurrentExecutions: 1, deadLetterQueue: dispatcherDeadLetters });
    api.addEnvironment('CALENDAR_IMPORT_QUEUE_URL', queue.queueUrl);
    api.addEnvironment('CALENDAR_IMPORT_KEY_ID', key.keyArn);
    for (const fn of [api, worker, dispatcher]) queue.grantSendMessages(fn);
    const context = (id: string) => new iam.PolicyStatement({ sid: id === 'Encrypt' ? 'SealImportPasswords' : 'OpenImportPasswords',
      actions: [`kms:${id}`], resources: [key.keyArn], conditions: { StringLike: { 'kms:EncryptionContext:import': '*' } } });
    api.role!.addToPrincipalPolicy(context('Encrypt'));
    worker.role!.addToPrincipalPolicy(context('Decrypt'));
    const invoker = new iam.Role(this, 'ImportScheduleRole', {
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', { conditions: { StringEquals: { 'aws:SourceAccount': this.account } } }),
      description: 'Calendar API: the import schedule invokes the import dispatcher',
    });
    const schedule = new scheduler.Schedule(this, 'ImportSchedule', {
      description: 'Every five minutes: queues the imports whose scheduled run is due (contract §20)',
      schedule: scheduler.ScheduleExpression.rate(Duration.minutes(5)),
      target: new schedulerTargets.LambdaInvoke(dispatcher, { role: invoker, deadLetterQueue: dispatcherDeadLetters, retryAttempts: 2,
        maxEventAge: Duration.minutes(10) }),
    });
    Validations.of(invoker).acknowledge({ id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${this.getLogicalId(dispatcher.node.defaultChild as lambda.CfnFunction)}.Arn>:*]`,
      reason: 'lambda:InvokeFunction on the import dispatcher\'s own ARN and its versions (ARN:*), as the scheduler target grants it: '
        + 'this role can invoke that one function only.' });
    return { key, queue, deadLetters, worker, dispatcher, dispatcherDeadLetters, schedule };
  }

  /**
   * Change events for other systems: the table's stream, filtered to new change-log entries, feeds a function that
   * publishes each on the stack's own event bus (source "calendar.events", detail-type "<kind>.<action>"), for the
   * deployer's rules (webhooks, search indexes, caches). Batches that keep failing after retries go to an encrypted
   * queue kept 14 days (their stream position; the entries themselves stay readable through GET /changes).
   */
  private buildChangeEvents(environment: Record<string, string>, retention: logs.RetentionDays):
    { bus: events.EventBus; fn: lambda.Function; deadLetters: sqs.Queue } {
    const bus = new events.EventBus(this, 'ChangeEvents', { description: 'Calendar API: one event per committed change (contract §16)' });
    const fn = this.buildLambda('PublishChanges', 'functions/publish-changes.ts', 'Calendar API: publishes committed changes to EventBridge',
      'Calendar API change-event publisher', 'none', { ...environment, CALENDAR_CHANGE_BUS: bus.eventBusName, CALENDAR_API_URL: this.apiUrl },
      retention, { memorySize: 256, timeout: Duration.seconds(30), ...reserved(this.config.reservedConcurrency.publishChanges) });
    Validations.of(fn).acknowledge({ id: 'Serverless::Serverless-LambdaDLQ', reason: 'The stream event source invokes this '
      + 'function synchronously; batches that keep failing go to the event source\'s failure destination (the queue below).' });
    bus.grantPutEventsTo(fn);
    const deadLetters = this.deadLetterQueue('PublishChangesDeadLetters', 'the failure destination of the change publisher\'s '
      + 'stream source; what lands here waits for an operator.');
    fn.addEventSource(new DynamoEventSource(this.table, {
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: 100,
      maxBatchingWindow: Duration.seconds(1),
      bisectBatchOnError: true,
      retryAttempts: 10,
      maxRecordAge: Duration.hours(24),
      reportBatchItemFailures: true,
      onFailure: new SqsDlq(deadLetters),
      filters: [lambda.FilterCriteria.filter({
        eventName: lambda.FilterRule.isEqual('INSERT'),
        dynamodb: { NewImage: { PK: { S: [{ prefix: 'CHG#' }] } } },
      })],
    }));
    Validations.of(fn.role!).acknowledge({ id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]', reason: 'dynamodb:ListStreams, '
      + 'which the stream event source grants, has no resource-level permissions; the stream reads themselves are limited to '
      + 'the table\'s stream ARN.' });
    new CfnOutput(this, 'ChangeEventBusName', { value: bus.eventBusName, description: 'EventBridge bus with one event per committed change' });
    return { bus, fn, deadLetters };
  }

  /**
   * Geocoding (contract §18, docs/geolocation.md), only with `-c geocoding=true`: an Amazon Location place index (Esri
   * data, request-based pricing, intended use Storage because the coordinates are stored) and a function on the table's
   * stream (the change publisher's stream, a second consumer), filtered to venue records whose coordinates no client
   * set, that places those whose address changed (functions/geocode.ts). Its role may search that one index, nothing
   * else of Amazon Location. Batches that keep failing go to an encrypted queue, as the publisher's do.
   */
  private buildGeocoding(environment: Record<string, string>, retention: logs.RetentionDays):
    { index: location.CfnPlaceIndex; fn: lambda.Function; deadLetters: sqs.Queue } {
    const index = new location.CfnPlaceIndex(this, 'Places', {
      indexName: `${Stack.of(this).stackName}-places`,
      dataSource: 'Esri',
      pricingPlan: 'RequestBasedUsage',
      dataSourceConfiguration: { intendedUse: 'Storage' },
      description: 'Calendar API: geocodes venue addresses (contract §18)',
    });
    const fn = this.buildLambda('Geocode', 'functions/geocode.ts', 'Calendar API: geocodes venues whose address changed',
      'Calendar API venue geocoder', 'read-write', { ...environment, CALENDAR_PLACE_INDEX: index.indexName }, retention,
      { memorySize: 256, timeout: Duration.seconds(30), ...reserved(this.config.reservedConcurrency.publishChanges) });
    fn.role!.addToPrincipalPolicy(new iam.PolicyStatement({
      sid: 'SearchThePlaceIndex', actions: ['geo:SearchPlaceIndexForText'], resources: [index.attrIndexArn],
    }));
    Validations.of(fn).acknowledge({ id: 'Serverless::Serverless-LambdaDLQ', reason: 'The stream event source invokes this '
      + 'function synchronously; batches that keep failing go to the event source\'s failure destination (the queue below).' });
    const deadLetters = this.deadLetterQueue('GeocodeDeadLetters', 'the failure destination of the venue geocoder\'s stream '
      + 'source; what lands here waits for an operator (the venue stays without coordinates until its next write).');
    fn.addEventSource(new DynamoEventSource(this.table, {
      startingPosition: lambda.StartingPosition.LATEST,
      batchSize: 20,
      maxBatchingWindow: Duration.seconds(5),
      bisectBatchOnError: true,
      retryAttempts: 5,
      maxRecordAge: Duration.hours(1),
      reportBatchItemFailures: true,
      onFailure: new SqsDlq(deadLetters),
      filters: [lambda.FilterCriteria.filter({
        eventName: lambda.FilterRule.or('INSERT', 'MODIFY'),
        dynamodb: { NewImage: { kind: { S: lambda.FilterRule.isEqual('venue') }, SK: { S: lambda.FilterRule.isEqual('POST') },
          geoOwn: lambda.FilterRule.notExists() } },
      })],
    }));
    Validations.of(fn.role!).acknowledge({ id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]', reason: 'dynamodb:ListStreams, '
      + 'which the stream event source grants, has no resource-level permissions; the stream reads themselves are limited to '
      + 'the table\'s stream ARN.' });
    new CfnOutput(this, 'PlaceIndexName', { value: index.indexName, description: 'Amazon Location place index that geocodes venues' });
    return { index, fn, deadLetters };
  }

  /**
   * An encrypted queue kept 14 days where failed work waits for an operator. It has no dead-letter queue of its own
   * (cdk-nag SQS3, acknowledged with `what`: what the queue is).
   */
  private deadLetterQueue(id: string, what: string): sqs.Queue {
    const queue = new sqs.Queue(this, id, { encryption: sqs.QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: Duration.days(14) });
    Validations.of(queue).acknowledge({ id: 'AwsSolutions::AwsSolutions-SQS3', reason: `This queue is ${what}` });
    Validations.of(queue).acknowledge({ id: 'Serverless::Serverless-SQSRedrivePolicy', reason: `Nothing consumes this queue, so no `
      + `message is received often enough to need a redrive policy: it is ${what}` });
    return queue;
  }

  private buildFunction(group: FunctionGroup, environment: Record<string, string>, retention: logs.RetentionDays): lambda.Function {
    const sizing = SIZING[group];
    const what = group === 'pages' ? 'the calendar pages' : `${group} routes`;
    const fn = this.buildLambda(pascal(group), `functions/${group}.ts`, `Calendar API: ${what}`, `Calendar API ${group} function`,
      tableAccess(group), environment, retention, { memorySize: sizing.memoryMb, timeout: sizing.timeout,
        ...reserved(this.config.reservedConcurrency[group]) });
    Validations.of(fn).acknowledge({ id: 'Serverless::Serverless-LambdaDLQ', reason: 'The API (and the root function, when '
      + 'it forwards a request) invokes this function synchronously: a failure is the caller\'s response, there is no '
      + 'asynchronous event to keep.' });
    return fn;
  }

  /**
   * A function of the stack (`<name>Logs`, `<name>Role`, `<name>Function`): its own log group and a role with exactly its
   * permissions — write to that log group (instead of the AWSLambdaBasicExecutionRole managed policy, which allows any
   * log group) and its DynamoDB actions — bundled with the one set of esbuild settings.
   */
  private buildLambda(name: string, entry: string, description: string, roleDescription: string, access: TableAccess,
    environment: Record<string, string>, retention: logs.RetentionDays,
    sizing: { memorySize: number; timeout: Duration; reservedConcurrentExecutions?: number; deadLetterQueue?: sqs.IQueue }): lambda.Function {
    const logGroup = new logs.LogGroup(this, `${name}Logs`, { retention, removalPolicy: RemovalPolicy.RETAIN });
    const role = new iam.Role(this, `${name}Role`, { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'), description: roleDescription });
    logGroup.grantWrite(role);
    grantTableAccess(role, this.table, access);
    const telemetry = functionTelemetry(this.config, entry);
    const fn = new lambda.Function(this, `${name}Function`, {
      description,
      code: functionCode(entry),
      handler: 'index.handler',
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      ...sizing,
      role,
      logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      applicationLogLevelV2: telemetry.applicationLogLevelV2,
      systemLogLevelV2: lambda.SystemLogLevel.WARN,
      tracing: telemetry.tracing,
      environment: { ...environment, ...telemetry.environment },
    });
    acknowledgeTelemetry(fn, role, this.config);
    return fn;
  }
}

export interface ImportParts {
  key: kms.Key;
  queue: sqs.Queue;
  deadLetters: sqs.Queue;
  worker: lambda.Function;
  dispatcher: lambda.Function;
  dispatcherDeadLetters: sqs.Queue;
  schedule: scheduler.Schedule;
}

/** Builds the table from lib/store/table.ts (the local runtime's definition): same keys, indexes and projections. */
function buildTable(scope: Construct): dynamodb.Table {
  const input = createTableInput('unused');
  const attributeType = (name: string): dynamodb.AttributeType => {
    const type = input.AttributeDefinitions?.find((a) => a.AttributeName === name)?.AttributeType;
    if (type === 'S') return dynamodb.AttributeType.STRING;
    if (type === 'N') return dynamodb.AttributeType.NUMBER;
    if (type === 'B') return dynamodb.AttributeType.BINARY;
    throw new Error(`lib/store/table.ts defines no attribute type for key attribute ${name}`);
  };
  const attribute = (name: string): dynamodb.Attribute => ({ name, type: attributeType(name) });

  const table = new dynamodb.Table(scope, 'Table', {
    partitionKey: attribute(TABLE.partitionKey),
    sortKey: attribute(TABLE.sortKey),
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
    timeToLiveAttribute: TABLE.ttlAttribute,
    // New items' images feed the change events (functions/publish-changes.ts); the local runtime has no stream.
    stream: dynamodb.StreamViewType.NEW_IMAGE,
  });
  for (const index of TABLE.indexes) {
    const projection = index.projection as string | readonly string[];
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: attribute(index.partitionKey),
      sortKey: attribute(index.sortKey),
      ...(typeof projection === 'string'
        ? { projectionType: projection === 'ALL' ? dynamodb.ProjectionType.ALL : dynamodb.ProjectionType.KEYS_ONLY }
        : { projectionType: dynamodb.ProjectionType.INCLUDE, nonKeyAttributes: [...projection] }),
    });
  }
  return table;
}

/**
 * DynamoDB permissions written out instead of grantReadData/grantReadWriteData (which add Scan, DescribeTable,
 * stream reads and BatchWriteItem): item reads and writes on the table, queries on the table and each named index
 * (no `index/*` wildcard). `accounts` access is limited by partition-key prefix (dynamodb:LeadingKeys) to the
 * application-password and failed-attempt items, on the table only, and may read the change log, its counter and the
 * user ids (the changes feed).
 */
function grantTableAccess(role: iam.IRole, table: dynamodb.Table, access: TableAccess): void {
  if (access === 'none') return;
  const itemReads = READ_ACTIONS.filter((a) => a !== 'dynamodb:Query');
  if (access === 'imports') {
    role.addToPrincipalPolicy(new iam.PolicyStatement({
      sid: 'ImportItems',
      actions: [...READ_ACTIONS, 'dynamodb:UpdateItem'],
      resources: [table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...IMPORT_KEY_PREFIXES] } },
    }));
    return;
  }
  if (access === 'accounts') {
    role.addToPrincipalPolicy(new iam.PolicyStatement({
      sid: 'AccountItems',
      actions: [...READ_ACTIONS, ...WRITE_ACTIONS],
      resources: [table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ACCOUNT_KEY_PREFIXES.map((p) => `${p}*`) } },
    }));
    role.addToPrincipalPolicy(new iam.PolicyStatement({
      sid: 'ReadChangeLog',
      actions: [...READ_ACTIONS],
      resources: [table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...CHANGE_READ_KEYS] } },
    }));
    return;
  }
  const indexArns = TABLE.indexes.map((i) => `${table.tableArn}/index/${i.name}`);
  role.addToPrincipalPolicy(new iam.PolicyStatement({ sid: 'ReadItems', actions: itemReads, resources: [table.tableArn] }));
  role.addToPrincipalPolicy(
    new iam.PolicyStatement({ sid: 'QueryTableAndIndexes', actions: ['dynamodb:Query'], resources: [table.tableArn, ...indexArns] }),
  );
  role.addToPrincipalPolicy(new iam.PolicyStatement({ sid: 'WriteItems', actions: [...WRITE_ACTIONS], resources: [table.tableArn] }));
}

/** Access log line (JSON): who called which route, the outcome, latency split, and authorizer/integration errors. */
const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  extendedRequestId: '$context.extendedRequestId',
  time: '$context.requestTime',
  epochMs: '$context.requestTimeEpoch',
  ip: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  method: '$context.httpMethod',
  path: '$context.path',
  routeKey: '$context.routeKey',
  protocol: '$context.protocol',
  domain: '$context.domainName',
  status: '$context.status',
  responseLength: '$context.responseLength',
  latencyMs: '$context.responseLatency',
  integrationLatencyMs: '$context.integrationLatency',
  integrationStatus: '$context.integrationStatus',
  integrationError: '$context.integrationErrorMessage',
  errorMessage: '$context.error.message',
  authorizerError: '$context.authorizer.error',
  sub: '$context.authorizer.claims.sub',
};
