-- The versions a person wrote (few: the model writes nearly all), so "was this page's
-- current version written by a person?" is answered from a small index rather than from
-- the table of every version with its whole text. `lint` asks it of every page that links
-- to nothing (a person's broken link is an error, the model's a wanted page).
CREATE INDEX page_versions_by_person ON page_versions(page_id, version)
    WHERE author_kind = 'person';
