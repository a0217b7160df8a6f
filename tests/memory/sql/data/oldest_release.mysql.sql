-- A database as the oldest release (commit e98952c) left it: its migration 1, 3
-- rounds of user 'ana' and her profile written by its stores, and a done summarize
-- job of those rounds with its topic 'Pets' (written with its table definitions:
-- that release defined the job table, the next one had the code that fills it).
-- Made on 2026-11-24 with MariaDB 10.11.19 by tests/memory/sql/data/make_oldest_release.py,
-- run with the code of e98952c first on PYTHONPATH (a git worktree of that commit).
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `memory_jobs` (
  `id` bigint(20) NOT NULL AUTO_INCREMENT,
  `job_key` varchar(191) NOT NULL,
  `kind` varchar(16) NOT NULL,
  `user_id` varchar(191) NOT NULL,
  `first_round_id` bigint(20) DEFAULT NULL,
  `last_round_id` bigint(20) DEFAULT NULL,
  `label_key` varchar(200) DEFAULT NULL,
  `topic_ids` text DEFAULT NULL,
  `status` varchar(16) NOT NULL,
  `attempts` int(11) NOT NULL,
  `next_attempt_at` datetime(6) NOT NULL,
  `claimed_by` varchar(64) DEFAULT NULL,
  `claimed_at` datetime(6) DEFAULT NULL,
  `last_error` text DEFAULT NULL,
  `created_at` datetime(6) NOT NULL,
  `finished_at` datetime(6) DEFAULT NULL,
  PRIMARY KEY (`id`),
  UNIQUE KEY `job_key` (`job_key`),
  KEY `ix_memory_jobs_status_due` (`status`,`next_attempt_at`)
) ENGINE=InnoDB AUTO_INCREMENT=2 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
/*!40101 SET character_set_client = @saved_cs_client */;
INSERT INTO `memory_jobs` (`id`, `job_key`, `kind`, `user_id`, `first_round_id`, `last_round_id`, `label_key`, `topic_ids`, `status`, `attempts`, `next_attempt_at`, `claimed_by`, `claimed_at`, `last_error`, `created_at`, `finished_at`) VALUES (1,'summarize:ana:1-3','summarize','ana',1,3,NULL,NULL,'done',1,'2026-11-24 06:11:15.464711',NULL,NULL,NULL,'2026-11-24 06:11:15.464711','2026-11-24 06:11:15.464711');
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `memory_progress` (
  `user_id` varchar(191) NOT NULL,
  `pending_rounds` int(11) NOT NULL,
  `scheduled_through` bigint(20) NOT NULL,
  PRIMARY KEY (`user_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
/*!40101 SET character_set_client = @saved_cs_client */;
INSERT INTO `memory_progress` (`user_id`, `pending_rounds`, `scheduled_through`) VALUES ('ana',0,3);
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `profiles` (
  `user_id` varchar(191) NOT NULL,
  `persona` varchar(64) DEFAULT NULL,
  `updated_at` datetime(6) NOT NULL,
  PRIMARY KEY (`user_id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
/*!40101 SET character_set_client = @saved_cs_client */;
INSERT INTO `profiles` (`user_id`, `persona`, `updated_at`) VALUES ('ana','coach','2026-11-24 06:11:15.463763');
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `rounds` (
  `id` bigint(20) NOT NULL AUTO_INCREMENT,
  `user_id` varchar(191) NOT NULL,
  `conversation_id` varchar(191) NOT NULL,
  `persona` varchar(64) NOT NULL,
  `user_text` mediumtext NOT NULL,
  `reply_text` mediumtext DEFAULT NULL,
  `status` varchar(16) NOT NULL,
  `created_at` datetime(6) NOT NULL,
  `replied_at` datetime(6) DEFAULT NULL,
  `summary_job_id` bigint(20) DEFAULT NULL,
  PRIMARY KEY (`id`),
  KEY `ix_rounds_user_id_id` (`user_id`,`id`)
) ENGINE=InnoDB AUTO_INCREMENT=4 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
/*!40101 SET character_set_client = @saved_cs_client */;
INSERT INTO `rounds` (`id`, `user_id`, `conversation_id`, `persona`, `user_text`, `reply_text`, `status`, `created_at`, `replied_at`, `summary_job_id`) VALUES (1,'ana','ana','coach','I adopted a cat named Miso last week.','A cat! Tell me about Miso.','answered','2026-11-24 06:11:15.447339','2026-11-24 06:11:15.449235',1);
INSERT INTO `rounds` (`id`, `user_id`, `conversation_id`, `persona`, `user_text`, `reply_text`, `status`, `created_at`, `replied_at`, `summary_job_id`) VALUES (2,'ana','ana','coach','She sleeps on my keyboard 🐈 — every night.','Sounds like she loves you.','answered','2026-11-24 06:11:15.453363','2026-11-24 06:11:15.454785',1);
INSERT INTO `rounds` (`id`, `user_id`, `conversation_id`, `persona`, `user_text`, `reply_text`, `status`, `created_at`, `replied_at`, `summary_job_id`) VALUES (3,'ana','ana','coach','I work night shifts as a nurse.','That is demanding work.','answered','2026-11-24 06:11:15.458107','2026-11-24 06:11:15.459185',1);
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `schema_migrations` (
  `version` int(11) NOT NULL,
  `name` varchar(100) NOT NULL,
  `applied_at` datetime(6) NOT NULL,
  PRIMARY KEY (`version`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
/*!40101 SET character_set_client = @saved_cs_client */;
INSERT INTO `schema_migrations` (`version`, `name`, `applied_at`) VALUES (1,'rounds, profiles, topics and memory jobs','2026-11-24 06:11:15.445143');
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `topics` (
  `id` varchar(36) NOT NULL,
  `user_id` varchar(191) NOT NULL,
  `label` varchar(200) NOT NULL,
  `label_key` varchar(200) NOT NULL,
  `description` mediumtext NOT NULL,
  `status` varchar(16) NOT NULL,
  `merged_into` varchar(36) DEFAULT NULL,
  `source_job_id` bigint(20) DEFAULT NULL,
  `indexed` tinyint(1) NOT NULL,
  `created_at` datetime(6) NOT NULL,
  `updated_at` datetime(6) NOT NULL,
  PRIMARY KEY (`id`),
  KEY `ix_topics_user_label_key` (`user_id`,`label_key`),
  KEY `ix_topics_user_status_updated` (`user_id`,`status`,`updated_at`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
/*!40101 SET character_set_client = @saved_cs_client */;
INSERT INTO `topics` (`id`, `user_id`, `label`, `label_key`, `description`, `status`, `merged_into`, `source_job_id`, `indexed`, `created_at`, `updated_at`) VALUES ('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa','ana','Pets','pet','The user adopted a cat named Miso, who sleeps on the keyboard.','active',NULL,1,1,'2026-11-24 06:11:15.464711','2026-11-24 06:11:15.464711');
