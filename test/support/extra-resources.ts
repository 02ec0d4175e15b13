import * as z from 'zod'
import {
  activitySchema,
  defineResource,
  documented,
  idSchema,
  readOnly,
  timeline,
  timestampSchema,
} from '../../index.js'

// A resource of the "real API" the shop does not show, defined in this one file: schema,
// uniqueness, permissions and seeding. Everything else comes from the definition.
const categorySchema = documented(
  z.object({
    id: readOnly(idSchema),
    name: z.string().trim().min(1).max(60),
    slug: z.string().regex(/^[a-z0-9-]{2,40}$/),
    status: activitySchema,
    position: z.int().min(0).max(1000),
    createdAt: readOnly(timestampSchema),
    updatedAt: readOnly(timestampSchema),
  }),
  { id: 'Category' },
)

export const categories = defineResource({
  name: 'categories',
  singular: 'category',
  schema: categorySchema,
  unique: { slug: { conflict: { code: 40910, message: 'Slug already used' } } },
  defaults: { status: 'active' },
  list: {
    sortable: ['id', 'name', 'slug', 'position', 'createdAt', 'updatedAt'],
    keyword: (category) => `${category.name}\u0000${category.slug}`,
  },
  permissions: { list: 'anyone', read: 'anyone' },
  seed: {
    count: 12,
    generate: ({ faker, count, reference }) =>
      timeline(faker, count, reference - 86_400_000 * 30, reference).map((time, index) => ({
        name: `Category ${faker.string.alpha({ length: 6, casing: 'lower' })}`,
        slug: `category-${index + 1}`,
        status: index % 4 === 3 ? ('inactive' as const) : ('active' as const),
        position: index,
        ...time,
      })),
  },
})

// And one that belongs to users: nested routes, members on their own, deleted with its user.
export const addresses = defineResource({
  name: 'addresses',
  singular: 'address',
  schema: documented(
    z.object({
      id: readOnly(idSchema),
      userId: idSchema,
      city: z.string().min(1).max(80),
      createdAt: readOnly(timestampSchema),
      updatedAt: readOnly(timestampSchema),
    }),
    { id: 'Address' },
  ),
  list: { sortable: ['id', 'city'], keyword: (address) => address.city },
  links: [{ resource: 'users', field: 'userId', nested: 'own' }],
  seed: {
    count: 4,
    generate: ({ count, reference, data }) =>
      Array.from({ length: count }, (_, index) => {
        const at = new Date(reference - index * 1000).toISOString()
        return {
          userId: data.users![index % 2]!.id,
          city: `City ${index}`,
          createdAt: at,
          updatedAt: at,
        }
      }),
  },
})
