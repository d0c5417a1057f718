/**
 * Writes db/migrations/<timestamp>-<Name>.ts with the SQL that brings a database migrated to the
 * current head up to date with the entities. Usage: npm run db:generate -- AddThing
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createDataSource } from '../db/data-source';
import { resolveDatabase } from '../db/local-database';

async function main(): Promise<void> {
  const name = process.argv[2];
  if (!name || !/^[A-Z][A-Za-z0-9]+$/.test(name)) {
    throw new Error('Give the migration a PascalCase name: npm run db:generate -- AddThing');
  }
  const db = await resolveDatabase();
  const ds = createDataSource({ url: db.url });
  try {
    await ds.initialize();
    await ds.runMigrations();
    const sql = await ds.driver.createSchemaBuilder().log();
    if (sql.upQueries.length === 0) {
      console.log('Entities and migrations agree; nothing to generate.');
      return;
    }
    const timestamp = Date.now();
    const className = `${name}${timestamp}`;
    const q = (s: string) => '`' + s.replace(/`/g, '\\`') + '`';
    const up = sql.upQueries.map((x) => `    await queryRunner.query(${q(x.query)});`).join('\n');
    const down = [...sql.downQueries]
      .reverse()
      .map((x) => `    await queryRunner.query(${q(x.query)});`)
      .join('\n');
    const file = path.join(__dirname, '..', '..', 'db', 'migrations', `${timestamp}-${name}.ts`);
    writeFileSync(
      file,
      `import type { MigrationInterface, QueryRunner } from 'typeorm';\n\nexport class ${className} implements MigrationInterface {\n  name = '${className}';\n\n  async up(queryRunner: QueryRunner): Promise<void> {\n${up}\n  }\n\n  async down(queryRunner: QueryRunner): Promise<void> {\n${down}\n  }\n}\n`,
    );
    console.log(`Wrote ${path.relative(process.cwd(), file)}; add ${className} to db/migrations/index.ts.`);
  } finally {
    if (ds.isInitialized) await ds.destroy();
    await db.stop();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
