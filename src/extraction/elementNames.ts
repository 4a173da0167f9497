/** The class and id of an element, the words sites name their blocks by. */
export function namesOf(el: Element): string {
  // linkedom answers "" for a missing class, so `??` alone would hide the id of an element with no class.
  const cls = el.getAttribute('class');
  const id = el.getAttribute('id');
  return cls && id ? `${cls} ${id}` : cls || id || '';
}
