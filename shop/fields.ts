import * as z from 'zod'

/** `active` or `inactive`: the status of users and products. */
export const activitySchema = z.enum(['active', 'inactive'])
