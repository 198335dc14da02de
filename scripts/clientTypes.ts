import openapiTS, { astToString } from 'openapi-typescript';

/** The client package's types, generated from the server's OpenAPI document (openapi-typescript). */
export async function clientTypesFrom(document: object): Promise<string> {
  const ast = await openapiTS(document as Parameters<typeof openapiTS>[0], { exportType: true, alphabetize: true });
  return `// Generated from the Seqflow API's OpenAPI document by \`npm run client:types\`: do not edit.\n\n${astToString(ast)}`;
}
