import SwaggerParser from '@apidevtools/swagger-parser'
import { describe, expect, it } from 'vitest'
import { apiRoutes } from '../../http/routes.js'
import { shopCatalog } from '../../shop/index.js'

const apiRouter = apiRoutes(shopCatalog).router
import { apiDocument } from '../../openapi/document.js'
import { assertConforms } from '../support/conformance.js'
import { useInProcessSandbox } from '../support/in-process.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- reading a JSON document
const document = apiDocument({ baseUrl: '/api', catalog: shopCatalog }) as any
const { call } = useInProcessSandbox()

describe('the OpenAPI 3.1 document', () => {
  it('is valid OpenAPI 3.1 for a real validator', async () => {
    const api = (await SwaggerParser.validate(structuredClone(document))) as { openapi?: string }
    expect(api.openapi).toBe('3.1.0')
  })

  it('the validator does reject a broken document (the check can fail)', async () => {
    const broken = structuredClone(document)
    broken.paths['/users'].get.parameters.push({ name: 'x', in: 'nowhere' })
    await expect(SwaggerParser.validate(broken)).rejects.toThrow()
  })

  it('reads as English: "Create a user", "Get an order" (issue 32)', () => {
    const paths = apiDocument({ catalog: shopCatalog }).paths as Record<
      string,
      Record<string, { summary?: string }>
    >
    expect(paths['/users']!.post!.summary).toBe('Create a user')
    expect(paths['/orders/{order_id}']!.get!.summary).toBe('Get an order')
  })

  it('has every path and method of the route table', () => {
    for (const route of apiRouter.routes) {
      for (const method of Object.keys(route.operations)) {
        expect(
          document.paths[route.path]?.[method.toLowerCase()],
          `${method} ${route.path}`,
        ).toBeDefined()
      }
    }
    expect(Object.keys(document.paths)).toContain('/__sandbox/db')
    expect(document.servers).toEqual([{ url: '/api' }])
  })

  it('documents the query parameters with their bounds and enums', () => {
    const parameters = Object.fromEntries(
      document.paths['/orders'].get.parameters
        .filter((p: { name?: string }) => p.name)
        .map((p: { name: string }) => [p.name, p]),
    )
    expect(parameters.pageSize.schema).toMatchObject({ minimum: 1, maximum: 100, default: 20 })
    expect(parameters.sort.schema.enum).toEqual(['id', 'status', 'total', 'createdAt', 'updatedAt'])
    expect(parameters.status.schema.enum).toEqual([
      'pending',
      'paid',
      'shipped',
      'delivered',
      'cancelled',
    ])
    expect(parameters.keyword.schema).toMatchObject({ minLength: 1, maxLength: 100 })
    expect(parameters.userId.schema).toMatchObject({ type: 'integer', minimum: 1 })
    expect(parameters.fields.schema.items.enum).toContain('total')
  })

  it('documents bodies, envelopes, errors with business codes, security and headers', () => {
    const create = document.paths['/users'].post
    expect(create.requestBody.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/UserCreate',
    )
    expect(create.responses['201'].content['application/json'].schema.$ref).toBe(
      '#/components/schemas/UserResponse',
    )
    expect(create.responses['201'].headers.Location).toBeDefined()
    expect(Object.keys(create.responses['409'].content['application/json'].examples)).toEqual([
      'usernameTaken',
      'emailTaken',
    ])
    expect(create.responses['401'].headers['WWW-Authenticate']).toBeDefined()
    for (const status of ['400', '403', '413', '415', '422', '429', '500', '503', 'default']) {
      expect(create.responses[status], status).toBeDefined()
    }
    const userCreate = document.components.schemas.UserCreate
    expect(userCreate.required).toEqual(['name', 'email'])
    expect(userCreate.properties.role).toMatchObject({
      enum: ['admin', 'member'],
      description: 'Only an admin may set or change it. Default: "member".',
    })
    expect(document.components.schemas.User.properties.id.readOnly).toBe(true)
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    })
    expect(document.paths['/sessions'].post.security).toEqual([])
    const deletion = document.paths['/users/{user_id}'].delete.responses
    expect(Object.keys(deletion)).toEqual(expect.arrayContaining(['204', '200']))
    const headerNames = document.paths['/products'].get.parameters
      .map((p: { $ref?: string }) => p.$ref)
      .filter(Boolean)
    expect(headerNames).toEqual(
      expect.arrayContaining([
        '#/components/parameters/Prefer',
        '#/components/parameters/RequestId',
      ]),
    )
  })

  it('is served at /openapi.json, without a token', async () => {
    const reply = await call('GET', '/openapi.json', { token: null })
    expect(reply.status).toBe(200)
    expect(reply.body.openapi).toBe('3.1.0')
    expect(reply.body.servers).toEqual([{ url: 'https://api.shop.test' }])
  })

  it('the conformance check rejects an undeclared status and a body off its schema', () => {
    const url = new URL('https://api.shop.test/users/1')
    expect(() => assertConforms('GET', url, '', 201, {}, '{}')).toThrow(
      /201 is not declared|does not match/,
    )
    const user = { code: 0, message: 'success', data: { id: 1, name: 'xy' } }
    expect(() => assertConforms('GET', url, '', 200, user, JSON.stringify(user))).toThrow(
      /does not match/,
    )
    const sparse = new URL('https://api.shop.test/users/1?fields=id,name')
    expect(() => assertConforms('GET', sparse, '', 200, user, JSON.stringify(user))).not.toThrow()
  })
})
