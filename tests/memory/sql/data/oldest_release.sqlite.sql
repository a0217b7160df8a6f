-- A database as the oldest release (commit e98952c) left it: its migration 1, 3
-- rounds of user 'ana' and her profile written by its stores, and a done summarize
-- job of those rounds with its topic 'Pets' (written with its table definitions:
-- that release defined the job table, the next one had the code that fills it).
-- Made on 2026-11-24 with SQLite 3.40.1 by tests/memory/sql/data/make_oldest_release.py,
-- run with the code of e98952c first on PYTHONPATH (a git worktree of that commit).
BEGIN TRANSACTION;
CREATE TABLE memory_jobs (
	id INTEGER NOT NULL, 
	job_key VARCHAR(191) NOT NULL, 
	kind VARCHAR(16) NOT NULL, 
	user_id VARCHAR(191) NOT NULL, 
	first_round_id BIGINT, 
	last_round_id BIGINT, 
	label_key VARCHAR(200), 
	topic_ids TEXT, 
	status VARCHAR(16) NOT NULL, 
	attempts INTEGER NOT NULL, 
	next_attempt_at DATETIME NOT NULL, 
	claimed_by VARCHAR(64), 
	claimed_at DATETIME, 
	last_error TEXT, 
	created_at DATETIME NOT NULL, 
	finished_at DATETIME, 
	PRIMARY KEY (id), 
	UNIQUE (job_key)
);
INSERT INTO "memory_jobs" VALUES(1,'summarize:ana:1-3','summarize','ana',1,3,NULL,NULL,'done',1,'2026-11-24 06:11:15.216662',NULL,NULL,NULL,'2026-11-24 06:11:15.216662','2026-11-24 06:11:15.216662');
CREATE TABLE memory_progress (
	user_id VARCHAR(191) NOT NULL, 
	pending_rounds INTEGER NOT NULL, 
	scheduled_through BIGINT NOT NULL, 
	PRIMARY KEY (user_id)
);
INSERT INTO "memory_progress" VALUES('ana',0,3);
CREATE TABLE profiles (
	user_id VARCHAR(191) NOT NULL, 
	persona VARCHAR(64), 
	updated_at DATETIME NOT NULL, 
	PRIMARY KEY (user_id)
);
INSERT INTO "profiles" VALUES('ana','coach','2026-11-24 06:11:15.216148');
CREATE TABLE rounds (
	id INTEGER NOT NULL, 
	user_id VARCHAR(191) NOT NULL, 
	conversation_id VARCHAR(191) NOT NULL, 
	persona VARCHAR(64) NOT NULL, 
	user_text TEXT NOT NULL, 
	reply_text TEXT, 
	status VARCHAR(16) NOT NULL, 
	created_at DATETIME NOT NULL, 
	replied_at DATETIME, 
	summary_job_id BIGINT, 
	PRIMARY KEY (id)
);
INSERT INTO "rounds" VALUES(1,'ana','ana','coach','I adopted a cat named Miso last week.','A cat! Tell me about Miso.','answered','2026-11-24 06:11:15.203546','2026-11-24 06:11:15.204678',1);
INSERT INTO "rounds" VALUES(2,'ana','ana','coach','She sleeps on my keyboard 🐈 — every night.','Sounds like she loves you.','answered','2026-11-24 06:11:15.210709','2026-11-24 06:11:15.211362',1);
INSERT INTO "rounds" VALUES(3,'ana','ana','coach','I work night shifts as a nurse.','That is demanding work.','answered','2026-11-24 06:11:15.213845','2026-11-24 06:11:15.214432',1);
CREATE TABLE schema_migrations (
	version INTEGER NOT NULL, 
	name VARCHAR(100) NOT NULL, 
	applied_at DATETIME NOT NULL, 
	PRIMARY KEY (version)
);
INSERT INTO "schema_migrations" VALUES(1,'rounds, profiles, topics and memory jobs','2026-11-24 06:11:15.202801');
CREATE TABLE topics (
	id VARCHAR(36) NOT NULL, 
	user_id VARCHAR(191) NOT NULL, 
	label VARCHAR(200) NOT NULL, 
	label_key VARCHAR(200) NOT NULL, 
	description TEXT NOT NULL, 
	status VARCHAR(16) NOT NULL, 
	merged_into VARCHAR(36), 
	source_job_id BIGINT, 
	"indexed" BOOLEAN NOT NULL, 
	created_at DATETIME NOT NULL, 
	updated_at DATETIME NOT NULL, 
	PRIMARY KEY (id)
);
INSERT INTO "topics" VALUES('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa','ana','Pets','pet','The user adopted a cat named Miso, who sleeps on the keyboard.','active',NULL,1,1,'2026-11-24 06:11:15.216662','2026-11-24 06:11:15.216662');
CREATE INDEX ix_rounds_user_id_id ON rounds (user_id, id);
CREATE INDEX ix_topics_user_label_key ON topics (user_id, label_key);
CREATE INDEX ix_topics_user_status_updated ON topics (user_id, status, updated_at);
CREATE INDEX ix_memory_jobs_status_due ON memory_jobs (status, next_attempt_at);
COMMIT;
