// @vitest-environment happy-dom
import { domEnvironmentSuite } from '../support/dom-suite.js'

domEnvironmentSuite()
