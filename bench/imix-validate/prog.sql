-- bench/imix-validate: inserts, an index, a join and a group-by in SQLite
CREATE TABLE a(id INTEGER PRIMARY KEY, k INTEGER, s TEXT);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 60000)
INSERT INTO a SELECT i, (i * 7919) % 1009, printf('name%05d', (i * 31) % 99991) FROM c;
CREATE INDEX ak ON a(k);
SELECT k, count(*), max(s) FROM a GROUP BY k ORDER BY 2 DESC LIMIT 3;
SELECT count(*) FROM a x JOIN a y ON x.k = y.k AND x.id < y.id AND y.id < x.id + 50;
SELECT sum(length(s)) FROM a WHERE s LIKE '%12%';
