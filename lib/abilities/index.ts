/**
 * Agents' capabilities as tools (seed 003 §3.2), the pure parts: the `provides:` declaration of a
 * role, the names under which abilities are offered, the tool a model sees, the checks of a
 * call's input and of the reply's output, and the callee's task text. The runtime side (routing
 * a call to an agent, waiting, delivering the reply) is lib/runtime/team/abilities.ts.
 */
export { ABILITY_NAME_MAX, ABILITY_NAME_PATTERN, AbilitySchema, compileJsonSchema, MAX_ABILITIES_PER_ROLE, MAX_SCHEMA_CHARS, MAX_SCHEMA_DEPTH, ProvidesSchema, type Ability, type JsonSchema } from "./schema";
export { abilitiesOfferedTo, abilityTable, qualifiedToolName, RESERVED_TOOL_NAMES, RESERVED_TOOL_PREFIXES, shortHash, TOOL_NAME_MAX, type OfferedAbility, type RoleAbilities } from "./naming";
export { ABILITY_ARGS_MAX_CHARS, ABILITY_EFFECT, abilityResult, abilityTaskText, abilityToolSpec, checkAbilityInput } from "./calls";
