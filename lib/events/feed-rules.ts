/**
 * A series' recurrence as a feed writes it (contract §14): its stored lines (lib/events/recurrence.ts), with every value
 * in the zone and value type of the series' DTSTART — RFC 5545 matches an EXDATE only so: date-times in the series' zone
 * under its TZID, UTC date-times where the feed writes the series in UTC (`tzid` null), dates for all-day series. UNTIL
 * is in UTC, or a date for all-day series.
 */
import { utcToWall, wallToUtc, type Wall } from '../time/format.js';
import type { EventItem } from './record.js';
import { ruleText, storedLines, untilWall, valueWalls, type RecurrenceLine } from './recurrence.js';

/** "2027-01-05 18:00:00" → "20270105T180000". */
const basic = (wall: Wall): string => wall.replace(/[-:]/g, '').replace(' ', 'T');

/**
 * The RRULE, RDATE and EXDATE lines of a series' VEVENT; `hidden` are the original starts (walls in the series' zone) of
 * occurrences that the reader does not see, excluded besides the series' own EXDATE values.
 */
export function seriesLines(series: EventItem, tzid: string | null, hidden: Wall[]): string[] {
  const timing = { start: series.start, tz: series.tz, allDay: series.allDay };
  const lines = storedLines(series.rec);
  const value = (wall: Wall): string => (series.allDay ? basic(wall).slice(0, 8) : tzid ? basic(wall) : `${basic(wallToUtc(wall, series.tz))}Z`);
  const param = series.allDay ? ';VALUE=DATE' : tzid ? `;TZID=${tzid}` : '';
  const values = (walls: Iterable<Wall>): string => [...new Set([...walls].map(value))].sort().join(',');

  const excluded = new Set(hidden);
  // A date excludes every start on that day (lib/events/recurrence.ts `expand`): the rule's, at the series' start time,
  // and any RDATE on it. (A rule with several starts a day keeps its others on such a day.)
  const excludedDays = new Set<string>();
  for (const line of lines) {
    if (line.kind !== 'EXDATE') continue;
    for (const { wall, day } of valueWalls(line, timing)) {
      excluded.add(wall);
      if (day) excludedDays.add(wall.slice(0, 10));
    }
  }
  const added = lines.flatMap((line) => (line.kind === 'RDATE' ? valueWalls(line, timing).map((v) => v.wall) : []))
    .filter((wall) => wall > series.start && !excludedDays.has(wall.slice(0, 10)));

  const rule = lines.find((l): l is Extract<RecurrenceLine, { kind: 'RRULE' }> => l.kind === 'RRULE');
  return [
    // Without a rule the series is its start and its RDATEs; COUNT=1 says "the start only" and keeps ical-generator from
    // reading a lone RDATE line as a rule.
    rule ? `RRULE:${feedRule(rule, series)}` : 'RRULE:FREQ=DAILY;COUNT=1',
    ...(added.length ? [`RDATE${param}:${values(added)}`] : []),
    ...(excluded.size ? [`EXDATE${param}:${values(excluded)}`] : []),
  ];
}

/** The rule's text with UNTIL in UTC (a date for all-day series), as RFC 5545 wants it beside a DTSTART with TZID. */
function feedRule(rule: Extract<RecurrenceLine, { kind: 'RRULE' }>, series: EventItem): string {
  const until = untilWall(rule, series.tz);
  if (!until) return ruleText(rule.rule);
  const value = series.allDay ? basic(until).slice(0, 8) : `${basic(wallToUtc(until, series.tz))}Z`;
  return `${ruleText({ ...rule.rule, until: null })};UNTIL=${value}`;
}

/** An occurrence's original start from its start in UTC, for one that kept its series' dates (they are the same). */
export const originalStart = (startUtc: Wall, series: EventItem): Wall => utcToWall(startUtc, series.tz);
