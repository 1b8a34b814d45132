-- An id of this database, kept for good: the projectors' consumer groups carry it, so databases
-- that read the topics of one TOPIC_PREFIX each get every partition instead of a share of them.
CREATE TABLE database_identity (
  id      text    NOT NULL,
  one_row boolean NOT NULL DEFAULT true PRIMARY KEY CHECK (one_row)
);
INSERT INTO database_identity (id) VALUES (substr(md5(random()::text || clock_timestamp()::text), 1, 12));
