/** Types shared by the store's modules (kept apart so that no two modules import each other). */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export type Key = { PK: string; SK: string };

/** The facts of an event that lists filter on and its relationship items, counters and index entries carry. */
export interface LinkFacts {
  id: number;
  startUtc: string;
  endUtc: string;
  status: string;
  author: number;
  featured: boolean;
  hidden: boolean;
  venue?: number;
  organizers: number[];
  categories: number[];
  tags: number[];
  pw?: string;
}
