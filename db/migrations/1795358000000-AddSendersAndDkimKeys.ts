import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AddSendersAndDkimKeys1795358000000 implements MigrationInterface {
  name = 'AddSendersAndDkimKeys1795358000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "email_senders" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "from_name" character varying(200) NOT NULL, "from_address" character varying(320) NOT NULL, "reply_to" character varying(320), CONSTRAINT "PK_f538144ffad3c241c3134ab209d" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_59dd7551baa28047725fa7b529" ON "email_senders" ("tenant_id", "environment") `);
    await queryRunner.query(
      `CREATE TABLE "dkim_keys" ("id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL, "tenant_id" bigint NOT NULL, "environment" character varying(8) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "domain" character varying(253) NOT NULL, "selector" character varying(63) NOT NULL, "private_key_sealed" text NOT NULL, "public_key" text NOT NULL, "key_type" character varying(10) NOT NULL, CONSTRAINT "PK_0afa3f58102952d90c014876d23" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_e36565ff6499058fb683bb0920" ON "dkim_keys" ("tenant_id", "environment") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_dkim_keys_domain" ON "dkim_keys" ("tenant_id", "environment", "domain") `);
    await queryRunner.query(`ALTER TABLE "messages" ADD "sender_id" bigint`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "messages" DROP COLUMN "sender_id"`);
    await queryRunner.query(`DROP TABLE "dkim_keys"`);
    await queryRunner.query(`DROP TABLE "email_senders"`);
  }
}
