// The form both TypeScript servers ask for.

// profile asks for every field type an elicitation schema has, the four formats included.
export const profile = {
  type: 'object',
  required: ['name', 'email'],
  properties: {
    name: { type: 'string', minLength: 2, maxLength: 20 },
    email: { type: 'string', format: 'email' },
    site: { type: 'string', format: 'uri' },
    born: { type: 'string', format: 'date' },
    at: { type: 'string', format: 'date-time' },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    score: { type: 'number', minimum: 0, maximum: 1 },
    ok: { type: 'boolean' },
    size: { type: 'string', enum: ['s', 'm', 'l'] },
    tier: { type: 'string', oneOf: [{ const: 'gold', title: 'Gold' }, { const: 'free', title: 'Free' }] },
    toppings: { type: 'array', minItems: 1, items: { type: 'string', enum: ['ham', 'egg', 'kale'] } },
  },
};
