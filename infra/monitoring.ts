/**
 * Alarms and a dashboard for the stack, built with cdk-monitoring-constructs' MonitoringFacade: the HTTP API (5xx and
 * 4xx rates, p99 latency), every function (p99 duration, errors, time-outs, throttles), the table's throttled
 * requests, the queues where failed work waits, and the change publisher's iterator age. Every alarm notifies one
 * encrypted SNS topic (on ALARM and on OK); the deployer subscribes an address with the `AlarmEmail` parameter.
 *
 * Time-outs have no metric of their own. A function that runs out of time ends with its Duration at the time limit,
 * so "maximum Duration ≥ 95 % of the time limit" catches every time-out (and a run that only just made it) with
 * Lambda's free metrics; a metric filter on "Task timed out" would add a custom metric per function and depend on
 * the wording of Lambda's platform log line. Time-outs also count in Errors, which alarms on its own.
 */
import { ArnFormat, CfnCondition, CfnOutput, CfnParameter, Duration, Fn, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { HttpApi, HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import {
  DefaultDashboardFactory,
  MonitoringFacade,
  SnsAlarmActionStrategy,
  type CustomAlarmThreshold,
  type LambdaFunctionMonitoringOptions,
} from 'cdk-monitoring-constructs';
import { Construct } from 'constructs';
import type { FunctionGroup } from '../lib/routes/types.js';
import type { CalendarConfig } from './config.js';

export interface CalendarMonitoringProps {
  config: CalendarConfig;
  api: HttpApi;
  stage: HttpStage;
  table: dynamodb.ITable;
  functions: Record<FunctionGroup, LambdaFunction>;
  horizon: { fn: LambdaFunction; deadLetters: sqs.IQueue };
  changeEvents: { fn: LambdaFunction; deadLetters: sqs.IQueue };
  /** With `-c geocoding=true`: the venue geocoder and its failure queue. */
  geocoding: { fn: LambdaFunction; deadLetters: sqs.IQueue } | null;
  /** The import worker and dispatcher (contract §20) and their dead-letter queues. */
  imports: { worker: LambdaFunction; dispatcher: LambdaFunction; deadLetters: sqs.IQueue; dispatcherDeadLetters: sqs.IQueue };
}

/** ALARM after one breaching 5-minute period: something failed, and each failure matters. */
const ONCE: CustomAlarmThreshold = { datapointsToAlarm: 1, evaluationPeriods: 1 };
/** Two of three 5-minute periods: a lasting condition, not one slow cold start or one bad minute. */
const SUSTAINED: CustomAlarmThreshold = { datapointsToAlarm: 2, evaluationPeriods: 3 };
/** The 4xx rate is judged only in periods with this many requests: a handful of 404s from a crawler is no spike. */
const MIN_REQUESTS_FOR_4XX_RATE = 50;
/** Maximum duration at this share of the time limit counts as a time-out (see the file comment). */
const TIMEOUT_PERCENT = 95;
/** The background jobs' p99 alarm: a run this close to its time limit is about to fail. */
const JOB_P99_PERCENT_OF_TIMEOUT = 80;

/** One alarm key per kind; cdk-monitoring-constructs puts it into the alarm's name. */
const KEY = 'Alarm';

/** The text an alarm notification carries: what happened and where to look (docs/operating.md, "Alarms and the dashboard"). */
const says = (text: string): CustomAlarmThreshold => ({ alarmDescriptionOverride: text });

export class CalendarMonitoring extends Construct {
  readonly topic: sns.Topic;
  readonly facade: MonitoringFacade;
  /** The email subscription, created only when the `AlarmEmail` parameter is not empty. */
  readonly emailSubscription: sns.CfnSubscription;

  constructor(scope: Construct, id: string, props: CalendarMonitoringProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const { config } = props;

    // CloudWatch cannot use the AWS-managed SNS key (its policy cannot name cloudwatch.amazonaws.com): a key of our own.
    // It only protects notifications in transit through SNS, so it goes with the stack (after KMS's waiting period).
    const key = new kms.Key(this, 'AlarmTopicKey', {
      description: `${stack.stackName}: encrypts the alarm topic`,
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    const cloudWatch = new iam.ServicePrincipal('cloudwatch.amazonaws.com');
    const fromOurAlarms = {
      StringEquals: { 'aws:SourceAccount': stack.account },
      ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 'cloudwatch', resource: 'alarm', resourceName: '*', arnFormat: ArnFormat.COLON_RESOURCE_NAME }) },
    };
    key.addToResourcePolicy(new iam.PolicyStatement({
      sid: 'CloudWatchAlarmsEncrypt', principals: [cloudWatch], actions: ['kms:Decrypt', 'kms:GenerateDataKey*'], resources: ['*'], conditions: fromOurAlarms,
    }));
    this.topic = new sns.Topic(this, 'AlarmTopic', {
      displayName: `${stack.stackName} alarms`,
      masterKey: key,
      enforceSSL: true,
    });
    // A topic policy replaces SNS's default one, which is what lets the account's alarms publish: say so explicitly.
    this.topic.addToResourcePolicy(new iam.PolicyStatement({
      sid: 'CloudWatchAlarmsPublish', principals: [cloudWatch], actions: ['sns:Publish'], resources: [this.topic.topicArn], conditions: fromOurAlarms,
    }));

    const email = new CfnParameter(stack, 'AlarmEmail', {
      type: 'String',
      default: '',
      description: 'Email address that receives the alarms (confirm the subscription mail); empty: no subscription.',
    });
    const hasEmail = new CfnCondition(stack, 'HasAlarmEmail', { expression: Fn.conditionNot(Fn.conditionEquals(email.valueAsString, '')) });
    this.emailSubscription = new sns.CfnSubscription(this, 'AlarmEmailSubscription', {
      topicArn: this.topic.topicArn,
      protocol: 'email',
      endpoint: email.valueAsString,
    });
    this.emailSubscription.cfnOptions.condition = hasEmail;
    Validations.of(this.emailSubscription).acknowledge({
      id: 'Serverless::Serverless-SNSRedrivePolicy',
      reason: 'An alarm mail that cannot be delivered has nowhere better to wait: the alarm itself stays in ALARM in ' +
        'CloudWatch and on the dashboard until its cause is gone.',
    });
    new CfnOutput(stack, 'AlarmTopicArn', { value: this.topic.topicArn, description: 'SNS topic every alarm notifies (subscribe more endpoints here)' });

    const dashboardName = `${stack.stackName}-${stack.region}`;
    this.facade = new MonitoringFacade(this, 'Facade', {
      alarmFactoryDefaults: {
        alarmNamePrefix: stack.stackName,
        actionsEnabled: true,
        action: new SnsAlarmActionStrategy({ onAlarmTopic: this.topic, onOkTopic: this.topic }),
        ...ONCE,
      },
      metricFactoryDefaults: {},
      dashboardFactory: new DefaultDashboardFactory(this, 'Dashboards', {
        dashboardNamePrefix: dashboardName,
        createDashboard: true,
        createSummaryDashboard: false,
        createAlarmDashboard: false,
      }),
    });
    new CfnOutput(stack, 'DashboardName', { value: dashboardName, description: 'CloudWatch dashboard of the API' });

    const { alarms } = config;
    this.facade
      .addLargeHeader(`${stack.stackName}: Calendar Events API`)
      .monitorApiGatewayV2HttpApi({
        api: props.api,
        // The metrics' Stage dimension is the stage's name, `$default` included.
        apiStage: props.stage.stageName,
        alarmFriendlyName: 'Api',
        humanReadableName: 'HTTP API',
        add5xxRateAlarm: { [KEY]: { maxErrorRate: alarms.api5xxRatePercent / 100, ...SUSTAINED,
          ...says(`More than ${alarms.api5xxRatePercent} % of the API's requests failed with a 5xx status. See the functions' ` +
            'Fault-Count alarms and their logs.') } },
        // 429s from the stage's throttling count here too.
        add4xxRateAlarm: { [KEY]: { maxErrorRate: alarms.api4xxRatePercent / 100, minSampleCountToEvaluateDatapoint: MIN_REQUESTS_FOR_4XX_RATE,
          ...SUSTAINED, ...says(`More than ${alarms.api4xxRatePercent} % of the API's requests were answered 4xx (429s from ` +
            'throttling included). The access log shows status, path and caller.') } },
      });

    for (const [group, fn] of Object.entries(props.functions)) {
      const label = `${group} function`;
      this.monitorFunction(fn, pascal(group), label, {
        addLatencyP99Alarm: { [KEY]: { maxLatency: Duration.millis(alarms.latencyP99Ms), ...SUSTAINED,
          ...says(`The slowest 1 % of the ${label}'s runs took longer than ${alarms.latencyP99Ms} ms.`) } },
      });
    }
    const jobLatency = (label: string) => ({ addLatencyP99Alarm: { [KEY]: { maxLatencyPercentageOfTimeout: JOB_P99_PERCENT_OF_TIMEOUT,
      ...SUSTAINED, ...says(`The slowest 1 % of the ${label}'s runs took ${JOB_P99_PERCENT_OF_TIMEOUT} % of its time limit.`) } } });
    this.monitorFunction(props.horizon.fn, 'Horizon', 'horizon job', jobLatency('horizon job'));
    this.monitorFunction(props.imports.worker, 'ImportWorker', 'import worker', jobLatency('import worker'));
    this.monitorFunction(props.imports.dispatcher, 'ImportDispatcher', 'import dispatcher', jobLatency('import dispatcher'));
    this.monitorFunction(props.changeEvents.fn, 'PublishChanges', 'change publisher', {
      ...jobLatency('change publisher'),
      isIterator: true,
      addMaxIteratorAgeAlarm: { [KEY]: { maxAgeInMillis: alarms.iteratorAgeSeconds * 1000, ...ONCE,
        ...says(`Change events are more than ${alarms.iteratorAgeSeconds} s behind the table: the change publisher is failing ` +
          'or throttled.') } },
    });

    this.facade.monitorDynamoTable({
      table: props.table,
      alarmFriendlyName: 'Table',
      humanReadableName: 'table',
      addReadThrottledEventsCountAlarm: { [KEY]: { maxThrottledEventsThreshold: 0, ...SUSTAINED,
        ...says('DynamoDB throttled reads of the table in two of three 5-minute periods.') } },
      addWriteThrottledEventsCountAlarm: { [KEY]: { maxThrottledEventsThreshold: 0, ...SUSTAINED,
        ...says('DynamoDB throttled writes to the table in two of three 5-minute periods.') } },
    });

    if (props.geocoding) {
      this.monitorFunction(props.geocoding.fn, 'Geocode', 'venue geocoder', {
        ...jobLatency('venue geocoder'),
        isIterator: true,
        addMaxIteratorAgeAlarm: { [KEY]: { maxAgeInMillis: alarms.iteratorAgeSeconds * 1000, ...ONCE,
          ...says(`Venue geocoding is more than ${alarms.iteratorAgeSeconds} s behind the table: the geocoder is failing or throttled.`) } },
      });
    }

    for (const [name, label, queue] of [
      ['HorizonDeadLetters', 'horizon job', props.horizon.deadLetters],
      ['PublishChangesDeadLetters', 'change publisher', props.changeEvents.deadLetters],
      ['ImportDeadLetters', 'import worker', props.imports.deadLetters],
      ['ImportDispatcherDeadLetters', 'import dispatcher', props.imports.dispatcherDeadLetters],
      ...(props.geocoding ? [['GeocodeDeadLetters', 'venue geocoder', props.geocoding.deadLetters] as const] : []),
    ] as const) {
      this.facade.monitorSqsQueue({
        queue,
        alarmFriendlyName: name,
        humanReadableName: `${label}: failed work`,
        // An idle queue publishes no metrics; an empty one is fine.
        addQueueMaxSizeAlarm: { [KEY]: { maxMessageCount: 0, treatMissingDataOverride: TreatMissingData.NOT_BREACHING, ...ONCE,
          ...says(`Failed work waits in the queue of the ${label}; read the function's log, fix the cause, then redo it.`) } },
      });
    }
  }

  private monitorFunction(fn: LambdaFunction, name: string, label: string, extra: LambdaFunctionMonitoringOptions): void {
    this.facade.monitorLambdaFunction({
      lambdaFunction: fn,
      alarmFriendlyName: name,
      humanReadableName: label,
      addFaultCountAlarm: { [KEY]: { maxErrorCount: 0, ...ONCE,
        ...says(`The ${label} ended with an error (an exception, a crash or a time-out); its log group has the details.`) } },
      addMaxLatencyAlarm: { Timeout: { maxLatencyPercentageOfTimeout: TIMEOUT_PERCENT, ...ONCE,
        ...says(`A run of the ${label} reached ${TIMEOUT_PERCENT} % of its time limit: it timed out or nearly did.`) } },
      addThrottlesCountAlarm: { [KEY]: { maxErrorCount: 0, ...ONCE,
        ...says(`Lambda throttled the ${label}: it used all of its reserved concurrency, or the account ran out.`) } },
      ...extra,
    });
  }
}

const pascal = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
