// The part of @aero/statuspage's client that the status-page tests use (the package ships no types).
declare module '@aero/statuspage' {
  interface Update { status: string, body: string }
  interface Component { id: string, name: string, status: string, children: Component[] }
  interface Summary {
    page: { id: string, name: string, url: string }
    status: { indicator: string, description: string }
    components: Component[]
    incidents: Array<{ name: string, updates: Update[] }>
    maintenances: Array<{ name: string, updates: Update[] }>
  }
  export class StatusPageClient {
    constructor (base: string)
    summary (): Promise<Summary>
  }
}
