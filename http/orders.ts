import { readOnlyFields } from '../contract/registry.js'
import type { Order } from '../shop/order-schema.js'
import {
  nestedOrderCreateSchema,
  orderCreateSchema,
  orderPatchSchema,
  orderReplaceSchema,
  orderSchema,
} from '../shop/order-schema.js'
import { validateBody } from './body.js'
import { success } from '../contract/envelope.js'
import type { ListSpec } from '../resources/list.js'
import { parseListQuery, parseRecordQuery, runListQuery, selectFields } from '../resources/list.js'
import type { Operation, OperationContext } from './operation.js'
import { ownUser } from './operation.js'
import { changeOrder, orderReferences, placeOrder, removeOrder } from '../shop/order-rules.js'
import { created, deleted, notFound, pathRecord } from './responses.js'
import type { Route } from './router.js'
import { pathUser } from './users.js'

const fields = orderSchema.keyof().options
// The owner is written once, at creation; after that it is read-only too.
const readOnly = [...readOnlyFields(orderSchema), 'userId']

export const orderListSpec: ListSpec<Order> = {
  fields,
  sortable: ['id', 'status', 'total', 'createdAt', 'updatedAt'],
  statuses: orderSchema.shape.status.options,
  keywordText: (order) => order.items.map((item) => item.productName).join('\u0000'),
  idFilters: { userId: 'userId' },
}

const nestedListSpec: ListSpec<Order> = { ...orderListSpec, idFilters: {} }
const rules = (context: OperationContext) => ({ strict: context.strict, readOnly })

function pathOrder(context: OperationContext): Order {
  return pathRecord(context, context.instance.store.orders, 'order')
}

const listOrders: Operation = {
  docs: {
    operationId: 'listOrders',
    summary: 'List orders',
    tags: ['orders'],
    success: { status: 200, data: orderSchema, list: true },
    query: 'list',
    listSpec: orderListSpec,
    errors: [],
  },
  run(context) {
    const query = parseListQuery(context.query, orderListSpec, context.strict)
    return success(runListQuery(context.instance.store.orders, query, orderListSpec))
  },
}

const createOrder: Operation = {
  docs: {
    operationId: 'createOrder',
    summary: 'Place an order for a user',
    description: 'Takes the quantities from product stock; every product must exist and be active.',
    tags: ['orders'],
    success: { status: 201, data: orderSchema },
    body: orderCreateSchema,
    errors: ['validationFailed', 'insufficientStock'],
  },
  async run(context) {
    const input = validateBody(
      orderCreateSchema,
      await context.readJson(),
      rules(context),
      orderReferences(context, { user: true }),
    )
    const order = placeOrder(context, input.userId, input.items)
    return created(context, `/orders/${order.id}`, order)
  },
}

const getOrder: Operation = {
  docs: {
    operationId: 'getOrder',
    summary: 'Get an order',
    tags: ['orders'],
    success: { status: 200, data: orderSchema },
    query: 'fields',
    listSpec: orderListSpec,
    errors: ['notFound'],
  },
  run(context) {
    const selected = parseRecordQuery(context.query, fields, context.strict)
    return success(selectFields(pathOrder(context), selected))
  },
}

function updateOrder(replace: boolean): Operation['run'] {
  return async (context) => {
    const body = await context.readJson()
    const order = pathOrder(context)
    const changes = validateBody(
      replace ? orderReplaceSchema : orderPatchSchema,
      body,
      rules(context),
      orderReferences(context, { user: false, current: order.items }),
    )
    return success(changeOrder(context, order, changes))
  }
}

const orderChangeErrors = [
  'notFound',
  'validationFailed',
  'insufficientStock',
  'invalidStatusChange',
] as const

const replaceOrder: Operation = {
  docs: {
    operationId: 'replaceOrder',
    summary: 'Replace an order (status and items)',
    description:
      'Status follows pending→paid→shipped→delivered, pending|paid→cancelled; items change only while pending; cancelling returns the stock.',
    tags: ['orders'],
    success: { status: 200, data: orderSchema },
    body: orderReplaceSchema,
    errors: orderChangeErrors,
  },
  run: updateOrder(true),
}

const patchOrder: Operation = {
  docs: {
    ...replaceOrder.docs,
    operationId: 'updateOrder',
    summary: 'Update an order partially',
    body: orderPatchSchema,
  },
  run: updateOrder(false),
}

const deleteOrder: Operation = {
  docs: {
    operationId: 'deleteOrder',
    summary: 'Delete an order',
    description: 'A pending or paid order gives its stock back.',
    tags: ['orders'],
    success: { status: 204, data: null, representation: orderSchema },
    errors: ['notFound'],
  },
  run(context) {
    const order = pathOrder(context)
    removeOrder(context, order)
    return deleted(context, order)
  },
}

const listUserOrders: Operation = {
  permit: ownUser,
  docs: {
    operationId: 'listUserOrders',
    summary: "List a user's orders",
    tags: ['orders'],
    success: { status: 200, data: orderSchema, list: true },
    query: 'list',
    listSpec: nestedListSpec,
    errors: ['notFound'],
  },
  run(context) {
    const query = parseListQuery(context.query, nestedListSpec, context.strict)
    const user = pathUser(context)
    const { orders } = context.instance.store
    const owned = orders.group('userId', user.id).map((id) => orders.get(id)!)
    return success(runListQuery(owned, query, nestedListSpec))
  },
}

const createUserOrder: Operation = {
  permit: ownUser,
  docs: {
    operationId: 'createUserOrder',
    summary: 'Place an order for this user',
    description: 'The owner is the user in the path. Takes the quantities from product stock.',
    tags: ['orders'],
    success: { status: 201, data: orderSchema },
    body: nestedOrderCreateSchema,
    errors: ['notFound', 'validationFailed', 'insufficientStock'],
  },
  async run(context) {
    const body = await context.readJson()
    const user = pathUser(context)
    const input = validateBody(
      nestedOrderCreateSchema,
      body,
      rules(context),
      orderReferences(context, { user: false }),
    )
    const order = placeOrder(context, user.id, input.items)
    return created(context, `/users/${user.id}/orders/${order.id}`, order)
  },
}

const getUserOrder: Operation = {
  permit: ownUser,
  docs: {
    operationId: 'getUserOrder',
    summary: 'Get one order of this user',
    description: '404 when the user does not exist, and when the order is not this user’s.',
    tags: ['orders'],
    success: { status: 200, data: orderSchema },
    query: 'fields',
    listSpec: orderListSpec,
    errors: ['notFound'],
  },
  run(context) {
    const selected = parseRecordQuery(context.query, fields, context.strict)
    const user = pathUser(context)
    const order = context.instance.store.orders.get(context.ids.order_id!)
    if (!order || order.userId !== user.id)
      throw notFound(`order ${context.ids.order_id} of user`, user.id)
    return success(selectFields(order, selected))
  },
}

export const orderRoutes: Route<Operation>[] = [
  { path: '/orders', operations: { GET: listOrders, POST: createOrder } },
  {
    path: '/orders/{order_id}',
    operations: { GET: getOrder, PUT: replaceOrder, PATCH: patchOrder, DELETE: deleteOrder },
  },
  { path: '/users/{user_id}/orders', operations: { GET: listUserOrders, POST: createUserOrder } },
  { path: '/users/{user_id}/orders/{order_id}', operations: { GET: getUserOrder } },
]
