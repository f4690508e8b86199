/**
 * Public face of the people of team mode (issue 32): the service over the data folder's people
 * database (Better Auth's tables and the invitations).
 */
export { People } from "./service";
