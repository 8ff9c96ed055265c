-- Flyway runs this after every migrate (a callback, not a migration: it has no version and runs each time), as the
-- role that owns the schema (quarkus.flyway.username, or the service's own role where there is only one). It grants
-- the role the service connects as (quarkus.datasource.username, the placeholder app_role) exactly what the service
-- does at run time: read and write rows, draw from sequences. Nothing else: it creates, alters and drops nothing,
-- and never touches Flyway's history. Run after every migrate, it also covers the tables a new migration added.
-- Where the service and the migrations share one role (dev, tests, a single-role database) it does nothing.
do $grants$
declare
    app text := '${app_role}';
begin
    if app = '' or app = current_user or not exists (select from pg_roles where rolname = app) then
        return;
    end if;
    execute format('grant usage on schema %I to %I', current_schema(), app);
    execute format('grant select, insert, update, delete on all tables in schema %I to %I', current_schema(), app);
    execute format('revoke all on table %I from %I', '${flyway:table}', app);
    execute format('grant usage on all sequences in schema %I to %I', current_schema(), app);
end
$grants$;
