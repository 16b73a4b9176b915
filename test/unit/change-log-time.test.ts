/**
 * A change-log entry carries the time of the record it names (contract §16: `modified_utc`), not the moment the write
 * took its numbers, which can fall in the next second; a deletion, and a term whose count moved, carry that moment.
 */
import { changeLogItems, changesIn, noted, notedCounts } from '../../lib/store/changes.js';
import type { TransactItem } from '../../lib/store/types.js';

const put = (): TransactItem => ({ Put: { TableName: 't', Item: { PK: 'x', SK: 'x' } } });
const event = (v: number, modifiedUtc: string) => ({ kind: 'event', id: 7, v, status: 'publish', author: 1, modifiedUtc, title: `v${v}` });
const numbers = { first: 100, at: Date.parse('2026-11-29T14:39:35.200Z') };
const entryTimes = (items: TransactItem[]) => changeLogItems(numbers, changesIn(items)).map((i) => i.Put?.Item?.t);

test('an entry of a record written is stamped with the record\'s own modifiedUtc', () => {
  expect(entryTimes([noted(put(), null, event(1, '2026-11-29 14:39:34'))])).toEqual(['2026-11-29 14:39:34']);
});

test('a record written twice in one transaction is stamped with its last state\'s time', () => {
  expect(entryTimes([noted(put(), event(1, '2026-11-29 14:00:00'), event(2, '2026-11-29 14:39:33')),
    noted(put(), event(2, '2026-11-29 14:39:33'), event(3, '2026-11-29 14:39:34'))])).toEqual(['2026-11-29 14:39:34']);
});

test('a deletion, and a term whose count moved, are stamped when the write took its numbers', () => {
  expect(entryTimes([noted(put(), event(1, '2026-11-29 14:00:00'), null), notedCounts(put(), [{ kind: 'tag', id: 9 }])]))
    .toEqual(['2026-11-29 14:39:35', '2026-11-29 14:39:35']);
});
