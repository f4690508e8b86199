/**
 * Agents' capabilities as tools (seed 003 §3.2), the pure parts: the `provides:` declaration of a
 * role, the names under which abilities are offered, the tool a model sees, the checks of a
 * call's input and of the reply's output, and the callee's task text. The runtime side (routing
 * a call to an agent, waiting, delivering the reply) is lib/runtime/team/abilities.ts.
 */
export { abilitiesOfferedTo, abilityTable, type OfferedAbility } from "./naming";
export { ABILITY_EFFECT, abilityResult, abilityTaskText, abilityToolSpec, checkAbilityInput } from "./calls";
