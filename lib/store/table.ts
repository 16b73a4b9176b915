/**
 * The one definition of the DynamoDB table, used by the CDK stack (infra/) and the local runtime (lib/local/).
 * Key layout and access patterns: lib/store/README.md.
 */
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

export interface IndexDefinition {
  name: string;
  partitionKey: string;
  sortKey: string;
  /** The sort key's type when it is not a string. */
  sortKeyType?: 'N';
  /** ALL, KEYS_ONLY, or the non-key attributes to include. */
  projection: 'ALL' | 'KEYS_ONLY' | readonly string[];
}

export const TABLE = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /** Items with this attribute (epoch seconds) are deleted by DynamoDB some time after it passes; readers check it. */
  ttlAttribute: 'expires',
  indexes: [
    /** Records by slug: GSI1PK = "<kind>#<slug>". */
    { name: 'bySlug', partitionKey: 'GSI1PK', sortKey: 'GSI1SK', projection: 'ALL' },
    /**
     * Collections in order: events by UTC start in yearly partitions (GSI2PK = "EVENTS#<yyyy>",
     * GSI2SK = "<utc start>#<id>"), venues and organizers by date, terms by name (lib/terms/order.ts). Carries just what list filters,
     * ordering and totals need, so a list reads small index items and fetches full records only for its page.
     */
    {
      name: 'byStart',
      partitionKey: 'GSI2PK',
      sortKey: 'GSI2SK',
      projection: [
        // events
        'id', 'status', 'author', 'endUtc', 'featured', 'venue', 'organizers', 'categories', 'tags', 'pw',
        // venues, organizers and terms
        'slug', 'nm', 'linked', 'parent', 'cnt',
      ],
    },
    /**
     * Venues with coordinates by geohash (sparse: GSI3PK = "GEOV", GSI3SK = "<geohash>#<id>", lib/geo/cells.ts): the
     * venues of a geohash cell are one sort-key prefix.
     */
    { name: 'byCell', partitionKey: 'GSI3PK', sortKey: 'GSI3SK', projection: ['id', 'status', 'author', 'pw', 'lat', 'lng', 'linked'] },
  ] as const satisfies readonly IndexDefinition[],
} as const;

export const DEFAULT_TABLE_NAME = 'calendar-events';

export function createTableInput(TableName: string): CreateTableCommandInput {
  const keys = (hash: string, range: string) => [
    { AttributeName: hash, KeyType: 'HASH' as const },
    { AttributeName: range, KeyType: 'RANGE' as const },
  ];
  const indexes: readonly IndexDefinition[] = TABLE.indexes;
  const types = new Map<string, 'S' | 'N'>([[TABLE.partitionKey, 'S'], [TABLE.sortKey, 'S']]);
  for (const i of indexes) {
    types.set(i.partitionKey, 'S');
    types.set(i.sortKey, i.sortKeyType ?? 'S');
  }
  return {
    TableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...types].map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType })),
    KeySchema: keys(TABLE.partitionKey, TABLE.sortKey),
    GlobalSecondaryIndexes: TABLE.indexes.map((i) => ({
      IndexName: i.name,
      KeySchema: keys(i.partitionKey, i.sortKey),
      Projection:
        typeof i.projection === 'string'
          ? { ProjectionType: i.projection }
          : { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...i.projection] },
    })),
  };
}
