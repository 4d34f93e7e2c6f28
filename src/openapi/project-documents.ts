/**
 * The generated artefacts of a project (OpenAPI document, its JSON text, TypeScript
 * declarations), built once per schema version: the cache is keyed by the schema object the
 * SchemaService hands out, which it replaces on every schema change, so an entry is never
 * stale and goes away with the schema it was built from.
 */
import type { TableDefinition } from '../schema/definition.js';
import type { ProjectSchema, SchemaService } from '../tables/schema-service.js';
import { buildOpenApiDocument, type DocumentTarget, type OpenApiDocument } from './openapi-document.js';
import { buildSchemaModel, type SchemaModel } from './schema-model.js';
import { buildTypeDeclarations } from './typescript-declarations.js';

/** What is generated from one version of a project's schema. */
export interface ProjectArtefacts {
  readonly model: SchemaModel;
  readonly document: OpenApiDocument;
  /** The document as JSON text (what GET /p/{id}/v1/openapi.json sends to the admin key). */
  readonly json: string;
  /** The document as the pk_ key sees the API, as JSON text (built on first use). */
  publicJson(): string;
  /** The TypeScript declarations (built on first use). */
  types(): string;
}

/** Builds every artefact of a set of table definitions. */
export function buildArtefacts(definitions: readonly TableDefinition[], target: DocumentTarget): ProjectArtefacts {
  const model = buildSchemaModel(definitions);
  const document = buildOpenApiDocument(model, target);
  let types: string | undefined;
  let publicJson: string | undefined;
  return Object.freeze({
    model,
    document,
    json: JSON.stringify(document, null, 2),
    types: () => (types ??= buildTypeDeclarations(model, target.projectId)),
    publicJson: () => (publicJson ??= JSON.stringify(buildOpenApiDocument(model, target, 'public'), null, 2)),
  });
}

/** Artefacts of the projects a server serves, cached per schema version. */
export class ProjectDocuments {
  private readonly cache = new WeakMap<ProjectSchema, ProjectArtefacts>();

  constructor(
    private readonly schemas: SchemaService,
    private readonly publicUrl: string,
  ) {}

  /** The artefacts of the project's current schema. Throws what SchemaService.schema throws. */
  async artefacts(projectId: string): Promise<ProjectArtefacts> {
    const schema = await this.schemas.schema(projectId);
    let built = this.cache.get(schema);
    if (!built) {
      built = buildArtefacts(
        [...schema.tables.values()].map((t) => t.definition),
        { projectId, publicUrl: this.publicUrl },
      );
      this.cache.set(schema, built);
    }
    return built;
  }
}
