import { LatchkeyError } from "./errors.js";

/**
 * Every page of a listing in turn, following `pagination.next_page_start` until it is null. A cursor
 * the server returns twice would loop forever, so it stops with an `invalid_response` error instead.
 */
export async function* allPages<Page extends { pagination: { next_page_start: string | null } }>(
  readPage: (pageStart: string | undefined) => Promise<Page>,
): AsyncGenerator<Page, void, undefined> {
  let pageStart: string | undefined;
  do {
    const page = await readPage(pageStart);
    yield page;
    const next = page.pagination.next_page_start;
    if (next !== null && next === pageStart) {
      throw new LatchkeyError({
        status: 200,
        code: "invalid_response",
        message: "The server returned the same page cursor twice; stopping instead of looping.",
      });
    }
    pageStart = next ?? undefined;
  } while (pageStart !== undefined);
}
