/**
 * Which organizations a caller of the authoring and testing services may see: an assistant's or an
 * operator's organizations. Anything outside them is refused exactly as if it did not exist.
 * Unset (`{}`) for the CLI, which works on the whole database.
 */
export interface AuthoringScope {
  organizationIds?: readonly string[];
}

export const inScope = (scope: AuthoringScope, organizationId: string): boolean =>
  scope.organizationIds === undefined || scope.organizationIds.includes(organizationId);
