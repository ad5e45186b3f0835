-- WikiMind schema, version 3: where a web page's URL led.
-- Append-only: never edit this file once released.
--
-- A URL source keeps the URL as typed (normalised, without fragment or credentials) as its
-- origin, its identity. When redirects took the download elsewhere, the URL it was finally
-- read from is kept beside it, to show; it plays no part in finding the source. NULL for
-- files, pasted text, and pages that did not redirect.

ALTER TABLE sources ADD COLUMN final_url TEXT;
