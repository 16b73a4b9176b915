/**
 * Geocoding (contract §18, `-c geocoding=true`): functions/geocode.ts, as the table's stream would hand it venue
 * records, against a table of this file's own on the harness's real DynamoDB. Venues are written through the real
 * venues handler; Amazon Location, which has no local stand-in, is an aws-sdk-client-mock that answers per address.
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LocationClient, SearchPlaceIndexForTextCommand } from '@aws-sdk/client-location';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { APIGatewayProxyEventV2, Context, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { handler as events } from '../../functions/events.js';
import { handler as geocode } from '../../functions/geocode.js';
import { handler as venues } from '../../functions/venues.js';
import { resetConfig } from '../../lib/config.js';
import { ensureTable } from '../../lib/local/dynamodb-local.js';
import { signLocalToken } from '../../lib/local/token-sign.js';
import { setClient } from '../../lib/store/client.js';
import { postKey } from '../../lib/store/keys.js';
import { captureOutput } from '../support/capture-output.js';
import { restoreAndDropTable } from '../support/own-table.js';

const endpoint = process.env.CALENDAR_TEST_DYNAMODB_ENDPOINT;
if (!endpoint) throw new Error('CALENDAR_TEST_DYNAMODB_ENDPOINT is not set: the global setup did not start DynamoDB Local');

type Result = { status: number; json: any };
const location = mockClient(LocationClient);
const SPRINGFIELD = { lat: 39.7817, lng: -89.6501 };
const SHELBYVILLE = { lat: 39.4064, lng: -88.79 };

describe('geocoding venues from the table stream (Amazon Location mocked)', () => {
  const table = `geocode-${randomUUID().slice(0, 8)}`;
  const secret = 'geocode-secret-0123456789abcdef0123456789';
  const raw = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const doc = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false } });
  const saved = { ...process.env };
  let token: string;

  beforeAll(async () => {
    Object.assign(process.env, { CALENDAR_TABLE_NAME: table, CALENDAR_JWT_SECRET: secret, CALENDAR_TIMEZONE: 'UTC', CALENDAR_SITE_URL: '',
      CALENDAR_JWT_ISSUER: '', CALENDAR_PLACE_INDEX: 'calendar-places', AWS_REGION: 'us-east-1' });
    resetConfig();
    await ensureTable(raw, table);
    setClient(doc);
    token = await signLocalToken({ secret, role: 'editor', sub: 'geocode-editor' });
  }, 60_000);
  afterAll(() => restoreAndDropTable(raw, table, saved));
  beforeEach(() => {
    location.reset();
    location.on(SearchPlaceIndexForTextCommand).callsFake((input: { Text: string }) => {
      const at = input.Text.includes('Springfield') ? SPRINGFIELD : input.Text.includes('Shelbyville') ? SHELBYVILLE : null;
      return { Results: at ? [{ Place: { Geometry: { Point: [at.lng, at.lat] } }, Relevance: 1 }] : [], Summary: {} };
    });
  });

  const context = { functionName: 'calendar-geocode', awsRequestId: 'stream', getRemainingTimeInMillis: () => 10_000 } as Context;
  async function call(fn: typeof venues, method: string, path: string, body?: unknown, query = ''): Promise<Result> {
    const rawPath = `/calendar/events/v1${path}`;
    const res = await fn({
      version: '2.0', routeKey: '$default', rawPath, rawQueryString: query,
      headers: { host: 'api.example.com', 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: body === undefined ? undefined : JSON.stringify(body), isBase64Encoded: false,
      requestContext: { accountId: '1', apiId: 'a', domainName: 'api.example.com', domainPrefix: 'api', requestId: randomUUID(),
        routeKey: '$default', stage: '$default', time: '', timeEpoch: 0,
        http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'jest' } },
    } as APIGatewayProxyEventV2, context) as { statusCode: number; body: string };
    return { status: res.statusCode, json: JSON.parse(res.body) };
  }
  const stored = async (id: number) => (await doc.send(new GetCommand({ TableName: table, Key: postKey(id), ConsistentRead: true }))).Item!;
  /** The stream's record of the venue as it is now (NEW_IMAGE), handed to the geocoder. */
  const deliver = async (...ids: number[]) => {
    const Records = await Promise.all(ids.map(async (id, i) => ({ eventName: 'MODIFY',
      dynamodb: { NewImage: marshall(await stored(id), { removeUndefinedValues: true }), SequenceNumber: String(100 + i) } }) as DynamoDBRecord));
    return geocode({ Records } as DynamoDBStreamEvent, context);
  };
  const venue = async (body: Record<string, unknown>) => {
    const r = await call(venues, 'POST', '/venues', { venue: `Hall ${randomUUID().slice(0, 8)}`, ...body });
    expect(r.status).toBe(201);
    return r.json;
  };
  const texts = () => location.commandCalls(SearchPlaceIndexForTextCommand).map((c) => c.args[0].input);

  it('a venue written with an address and no coordinates gets the place index\'s best match', async () => {
    const v = await venue({ address: '1 Main St', city: 'Springfield', stateprovince: 'IL', country: 'United States' });
    expect(await deliver(v.id)).toEqual({ batchItemFailures: [] });
    expect(texts()).toEqual([{ IndexName: 'calendar-places', Text: '1 Main St, Springfield, IL, United States', MaxResults: 1 }]);
    const after = (await call(venues, 'GET', `/venues/${v.id}`)).json;
    expect({ lat: after.geo_lat, lng: after.geo_lng }).toEqual(SPRINGFIELD);
    expect(after.json_ld.geo).toEqual({ '@type': 'GeoCoordinates', latitude: SPRINGFIELD.lat, longitude: SPRINGFIELD.lng });
    const near = (await call(venues, 'GET', '/venues', undefined, `geoloc_lat=${SPRINGFIELD.lat}&geoloc_lng=${SPRINGFIELD.lng}&geoloc_radius=1`)).json;
    expect(near.venues.map((x: any) => x.id)).toContain(v.id);
    // Its own write reaches the stream too: nothing is due any more, no second request.
    await deliver(v.id);
    expect(texts()).toHaveLength(1);
  });

  it('an address that cannot be placed leaves the venue without coordinates, and is not asked again', async () => {
    const v = await venue({ address: 'Nowhere Lane', city: 'Atlantis' });
    expect(await deliver(v.id)).toEqual({ batchItemFailures: [] });
    expect(await deliver(v.id)).toEqual({ batchItemFailures: [] });
    expect(texts()).toHaveLength(1);
    const after = (await call(venues, 'GET', `/venues/${v.id}`)).json;
    expect({ lat: after.geo_lat, lng: after.geo_lng }).toEqual({ lat: 0, lng: 0 });
  });

  it('an address that changed is placed again, and the venue\'s events move with it', async () => {
    const v = await venue({ address: '1 Main St', city: 'Springfield' });
    await deliver(v.id);
    const ev = await call(events, 'POST', '/events', { title: 'Fair', start_date: '2044-05-01 10:00', end_date: '2044-05-01 12:00', venue: v.id });
    expect(ev.status).toBe(201);
    const around = async (at: { lat: number; lng: number }) => (await call(events, 'GET', '/events', undefined,
      `geoloc_lat=${at.lat}&geoloc_lng=${at.lng}&geoloc_radius=5&start_date=2044-01-01&end_date=2045-01-01`)).json.events.map((e: any) => e.id);
    expect(await around(SPRINGFIELD)).toEqual([ev.json.id]);
    expect((await call(venues, 'POST', `/venues/${v.id}`, { city: 'Shelbyville' })).status).toBe(200);
    await deliver(v.id);
    expect(texts().map((t) => t.Text)).toEqual(['1 Main St, Springfield', '1 Main St, Shelbyville']);
    expect(await around(SHELBYVILLE)).toEqual([ev.json.id]);
    expect(await around(SPRINGFIELD)).toEqual([]);
  });

  it('coordinates a client set or cleared are never geocoded over', async () => {
    const set = await venue({ address: '1 Main St', city: 'Springfield', geo_lat: 10, geo_lng: 20 });
    const cleared = await venue({ address: '2 Main St', city: 'Springfield', geo_lat: null, geo_lng: null });
    await deliver(set.id, cleared.id);
    expect(texts()).toEqual([]);
    expect((await call(venues, 'GET', `/venues/${set.id}`)).json).toMatchObject({ geo_lat: 10, geo_lng: 20 });
    expect((await call(venues, 'GET', `/venues/${cleared.id}`)).json).toMatchObject({ geo_lat: 0, geo_lng: 0 });
  });

  it('a client\'s coordinates written while the geocoder waits for Amazon Location win (the write is conditional)', async () => {
    const v = await venue({ address: '3 Main St', city: 'Springfield' });
    location.on(SearchPlaceIndexForTextCommand).callsFake(async () => {
      expect((await call(venues, 'POST', `/venues/${v.id}`, { geo_lat: 1.5, geo_lng: 2.5 })).status).toBe(200);
      return { Results: [{ Place: { Geometry: { Point: [SPRINGFIELD.lng, SPRINGFIELD.lat] } } }], Summary: {} };
    });
    expect(await deliver(v.id)).toEqual({ batchItemFailures: [] });
    expect((await call(venues, 'GET', `/venues/${v.id}`)).json).toMatchObject({ geo_lat: 1.5, geo_lng: 2.5 });
    expect((await stored(v.id)).geoAddr).toBeUndefined();
  });

  it('Amazon Location failing hands the record back to the stream (batch item failure)', async () => {
    const ok = await venue({ address: '4 Main St', city: 'Springfield' });
    const failing = await venue({ address: '5 Main St', city: 'Springfield' });
    location.on(SearchPlaceIndexForTextCommand, { Text: '5 Main St, Springfield' }).rejects(new Error('ThrottlingException'));
    const output = captureOutput();
    try {
      expect(await deliver(ok.id, failing.id)).toEqual({ batchItemFailures: [{ itemIdentifier: '101' }] });
    } finally {
      output.restore();
    }
    expect((await call(venues, 'GET', `/venues/${ok.id}`)).json.geo_lat).toBe(SPRINGFIELD.lat);
    expect((await call(venues, 'GET', `/venues/${failing.id}`)).json.geo_lat).toBe(0);
  });
});
