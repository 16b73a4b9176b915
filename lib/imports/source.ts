/**
 * What an import source yields (contract §20), whatever it is read from: iCalendar (lib/imports/ics/) or a site that
 * runs the origin's API (lib/imports/tec.ts). A source event is written as the body of `POST /events` would be
 * (its `fields` use that operation's parameter names), so imported events pass the same validation as any other.
 */

/** A venue as a source names it: created when no venue of that name exists, else matched by name (contract §20). */
export interface SourceVenue {
  venue: string;
  address?: string;
  city?: string;
  country?: string;
  province?: string;
  state?: string;
  zip?: string;
  phone?: string;
  website?: string;
  /** Decimal degrees, both or neither (iCalendar GEO, the origin's geo_lat/geo_lng). */
  geo_lat?: number;
  geo_lng?: number;
}

/** An organizer as a source names it: matched by email, else by name. */
export interface SourceOrganizer {
  organizer: string;
  email?: string;
  phone?: string;
  website?: string;
}

/** The fields of an event as `POST /events` takes them. */
export interface SourceFields {
  title: string;
  /** Sanitised HTML (plain text becomes escaped paragraphs). */
  description: string;
  excerpt?: string;
  /** Wall clock `YYYY-MM-DD HH:MM:SS` in `timezone`. */
  start_date: string;
  end_date: string;
  all_day: boolean;
  /** An IANA name (or UTC). */
  timezone: string;
  /** RFC 5545 lines (RRULE, RDATE, EXDATE) when the source event is a series (contract §13). */
  recurrence?: string[];
  website?: string;
  venue?: SourceVenue;
  organizer?: SourceOrganizer[];
  /** Names (tec sources: names too; matched to existing terms by name, else created). */
  categories?: string[];
  tags?: string[];
  /** tec sources: the source's status and slug, kept where the import's own settings allow (contract §20). */
  status?: string;
  slug?: string;
  cost?: string;
  featured?: boolean;
}

/** One edited occurrence of a series (iCalendar RECURRENCE-ID). */
export interface SourceOverride {
  /** The occurrence's scheduled start, wall clock `YYYY-MM-DD HH:MM:SS` in the series' time zone. */
  recurrenceId: string;
  /** Cancelled (or private) occurrences become exceptions of the series. */
  removed: boolean;
  /** What the occurrence changes (dates, title…), in the series' own terms. */
  fields: Partial<SourceFields>;
}

export interface SourceEvent {
  /**
   * The event's identity within its import: `uid:<UID>` (iCalendar), `tec:<source id>` (origin sites), or, for a
   * one-time iCalendar import of an event without UID, `sum:<hash of summary, start and location>`.
   */
  key: string;
  /**
   * Why the event is not imported, or no longer: `cancelled` (STATUS:CANCELLED), `private` (CLASS:PRIVATE or
   * CONFIDENTIAL), `protected` (a password-protected source event). The run removes an event it brought in earlier.
   */
  removed?: 'cancelled' | 'private' | 'protected';
  /** A stable hash of everything below: equal hashes mean nothing changed at the source. */
  hash: string;
  fields: SourceFields;
  overrides: SourceOverride[];
  /**
   * UTC `YYYY-MM-DD HH:MM:SS` of the first occurrence's start and of the last occurrence's end (windows, order);
   * `9999-12-31 23:59:59` for a series that runs on past the recurrence horizon, as the service stores it.
   */
  startUtc: string;
  endUtc: string;
}

/** A source event that could not be read: the rest of the source still imports (contract §20 `errors`). */
export interface SourceError {
  /** The UID (or the tec id) when known, else "". */
  uid: string;
  message: string;
}

export interface SourceRead {
  events: SourceEvent[];
  errors: SourceError[];
  /**
   * The source had more events than the run's limit: only the first ones in start order were read (and an error
   * says so), so an event the source no longer seems to list may just be beyond them.
   */
  truncated?: boolean;
}
